"""The quantization pass: ops with a uint8 engine kernel (UINT8_KERNELS)
become uint8 ops; every other op stays float, with Quantize and Dequantize
inserted where float and uint8 regions meet, so the app still feeds and
reads float.

Run on the float graph after the float transforms, with activation ranges
keyed by the float graph's tensor names (what `mace_run --quantize_stat`
reports for the float model).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.ir import FLOAT32, UINT8, Graph, Op, QuantParams, Tensor
from mace_converter.op_specs import SpecField
from mace_converter.quantize import scheme
from mace_converter.quantize.ranges import Ranges, check_names
from mace_converter.quantize.uint8_kernels import (  # noqa: F401  (re-exported)
    CLAMPABLE, FIXED, KEEP_INPUT, OWN_RANGE, SOFTMAX_OUTPUT, UINT8_ELTWISE_TYPES, Shapes,
    Uint8Kernel)

# The DataType value of DT_UINT8 (mace/proto/mace.proto), for the "T" arg.
DT_UINT8 = 2

# A fixed-quantization output whose measured maximum stays below this stays
# float (_Pass.fixed_output_fits): 0.1 is about 26 steps of 1/256.
FIXED_OUTPUT_MIN_PEAK = 0.1

# The uint8 traits by op type: a view of OpSpec.uint8 (mace_converter/op_specs.py),
# one per op type with a uint8 CPU kernel in the engine. A test checks that
# every entry is registered in mace/ops.
UINT8_KERNELS = SpecField("uint8")

# Ops that move bytes between several tensors: when their inputs and outputs
# share one quantization, the uint8 kernel is a copy. The pass gives each
# group of tensors joined by these ops (and by ops whose output keeps the
# input's quantization) one range, the union of the group's ranges, as
# TFLite does for concatenation.
SHARED_RANGE_OPS = ("Concat",)

# Ops whose output holds their first input's values, rearranged.
MOVES_VALUES = ("Reshape", "Squeeze", "Transpose", "Identity")


@dataclass
class QuantizeSettings:
    ranges: Ranges = field(default_factory=dict)
    # Exact (scale, zero point) of activations, from an imported QDQ model;
    # they win over `ranges`.
    fixed: dict[str, QuantParams] = field(default_factory=dict)
    # Exact per-channel weight scales from an imported QDQ model.
    weight_scales: dict[str, np.ndarray] = field(default_factory=dict)
    per_channel: bool = True
    # Let the app feed and read uint8 where a graph input or output borders
    # a uint8 op, instead of Quantize and Dequantize at the edges.
    uint8_io: bool = False
    source: str = "quantize_range_file"


def _activation_inputs(kernel: Uint8Kernel, op: Op) -> list[int]:
    indices = range(len(op.inputs)) if kernel.activations is None else kernel.activations
    return [i for i in indices if i < len(op.inputs) and op.inputs[i]]


def _varying_weight(graph: Graph, kernel: Uint8Kernel, op: Op) -> bool:
    """A MatMul whose B is a tensor rather than a constant."""
    return (kernel.weight_may_vary and kernel.weight is not None
            and kernel.weight < len(op.inputs) and not graph.is_const(op.inputs[kernel.weight]))


def quantizable(graph: Graph, op: Op, has_params: Callable[[str], bool],
                is_uint8: Callable[[str], bool], shape: Optional[Shapes] = None) -> bool:
    """Whether `op` gets its uint8 kernel: a kernel exists and accepts its
    arguments, its weights are constants, and every activation it reads or
    writes has quantization parameters. An op whose output keeps its
    input's quantization (pooling, data movement, a RELU) is quantized only
    where its input is uint8 already: alone it would only add a Quantize and
    a Dequantize."""
    kernel = UINT8_KERNELS.get(op.type)
    if shape is None:
        shape = lambda name: graph.tensor(name).shape   # noqa: E731
    if kernel is None or not kernel.accepts(op, shape):
        return False
    activations = _activation_inputs(kernel, op)
    if _varying_weight(graph, kernel, op):
        activations.append(kernel.weight)
    if not activations:
        return False
    for index, name in enumerate(op.inputs):
        if not name:
            continue
        if index in activations:
            if graph.is_const(name):
                return False
            if not is_uint8(name) and (graph.tensor(name).dtype != FLOAT32
                                       or not has_params(name)):
                return False
        elif index in (kernel.weight, kernel.bias):
            if not graph.is_const(name) or graph.tensor(name).dtype != FLOAT32:
                return False
        elif is_uint8(name) or graph.tensor(name).dtype == FLOAT32:
            return False            # an operand the kernel has no place for
    if kernel.output == KEEP_INPUT and not is_uint8(op.inputs[activations[0]]):
        return False
    if kernel.output != OWN_RANGE:
        return all(graph.tensor(out).dtype == FLOAT32 for out in op.outputs)
    return all(graph.tensor(out).dtype == FLOAT32 and has_params(out) for out in op.outputs)


def shared_ranges(graph: Graph, settings: QuantizeSettings) -> dict[str, QuantParams]:
    """One quantization for each group of calibrated tensors that a Concat
    joins, followed through the ops whose output keeps their input's
    quantization (a Split or ChannelShuffle after the Concat, a Pooling or
    Reshape before it). The group's range is the union of its members'
    measured ranges, so a Concat of two convolutions copies bytes instead of
    rescaling each input. Tensors with imported (QDQ) parameters keep them,
    and so does every tensor of a group that holds one."""
    if not settings.ranges:
        return {}
    parent: dict[str, str] = {}

    def find(name: str) -> str:
        while parent.setdefault(name, name) != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    def join(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    shape = lambda name: graph.tensor(name).shape   # noqa: E731
    joined: set[str] = set()
    for op in graph.ops:
        kernel = UINT8_KERNELS.get(op.type)
        names = [n for n in op.inputs if n] + list(op.outputs)
        if op.type in SHARED_RANGE_OPS:
            if any(graph.is_const(n) or n not in settings.ranges for n in names):
                continue
            for name in names[1:]:
                join(names[0], name)
            joined.update(names)
        elif kernel is not None and kernel.output == KEEP_INPUT and kernel.accepts(op, shape):
            source = op.inputs[0] if op.inputs else ""
            if not source or graph.is_const(source) or source not in settings.ranges:
                continue
            for out in op.outputs:
                if out in settings.ranges:
                    join(source, out)
    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(find(name), []).append(name)
    shared: dict[str, QuantParams] = {}
    for members in groups.values():
        if not joined.intersection(members) or any(m in settings.fixed for m in members):
            continue
        low = min(settings.ranges[m][0] for m in members)
        high = max(settings.ranges[m][1] for m in members)
        quant = scheme.activation_params(low, high, f"tensor '{members[0]}'")
        for member in members:
            shared[member] = quant
    return shared


class _Pass:
    def __init__(self, graph: Graph, settings: QuantizeSettings):
        self.graph = graph
        self.settings = settings
        self.shared = shared_ranges(graph, settings)
        self.quantized_of: dict[str, str] = {}    # float tensor -> its Quantize output
        self.uint8_of: dict[str, str] = {}        # float name -> uint8 op output
        self.dequantized: set[str] = set()
        self.ops: list[Op] = []
        self.counts = {"quantized": 0, "quantize": 0, "dequantize": 0, "fake": 0}
        # Fake quantizations of an imported QDQ model, by the name of the
        # integers between their two ops (onnx_qdq.fake_quantize).
        self.fake_quant: dict[str, Optional[QuantParams]] = getattr(graph, "fake_quant", {})
        self.inherit_fixed_params()

    def params(self, name: str) -> QuantParams:
        if name in self.shared:
            return replace(self.shared[name])
        fixed = self.settings.fixed.get(name)
        if fixed is not None:
            scheme.check_scale(fixed.scale, f"tensor '{name}'")
            return fixed
        if name not in self.settings.ranges:
            raise ConversionError(f"tensor '{name}' needs a range for uint8 but "
                                  f"{self.settings.source} has none for it")
        low, high = self.settings.ranges[name]
        return scheme.activation_params(low, high, f"tensor '{name}'")

    def output_params(self, name: str, op: Op) -> QuantParams:
        """A fused RELU/RELU6/RELUX narrows the measured range to what the
        activation can produce, so no code of the uint8 range is wasted.
        A tensor of a shared-range group keeps the group's range: the kernel
        applies the activation as its output clamp within it."""
        if name in self.shared or name in self.settings.fixed or name not in self.settings.ranges:
            return self.params(name)
        low, high = self.settings.ranges[name]
        activation = op.args.get("activation", "NOOP")
        if activation in ("RELU", "RELU6", "RELUX"):
            low = max(low, 0.0)
        if activation == "RELU6":
            high = min(high, 6.0)
        elif activation == "RELUX":
            high = min(high, float(op.args.get("activation_max_limit", high)))
        return scheme.activation_params(low, max(low, high), f"tensor '{name}'")

    def uint8_input(self, name: str) -> str:
        """The uint8 form of activation `name`: a quantized op's own output,
        or a Quantize of the float tensor (one per tensor)."""
        if name in self.uint8_of:
            return self.uint8_of[name]
        if name not in self.quantized_of:
            quant = self.params(name)
            out = self.graph.unique_name(f"{name}_u8")
            self.graph.tensors[out] = _uint8_tensor(self.graph, out, name, quant)
            self.ops.append(self._new_op("Quantize", name, out))
            self.quantized_of[name] = out
            self.counts["quantize"] += 1
        return self.quantized_of[name]

    def float_input(self, name: str) -> str:
        """`name` as float: a uint8 op's output gets a Dequantize (once)."""
        if name in self.uint8_of and name not in self.dequantized:
            self.graph.tensors[name] = Tensor(name, self.graph.shape(self.uint8_of[name]))
            self.ops.append(self._new_op("Dequantize", self.uint8_of[name], name))
            self.dequantized.add(name)
            self.counts["dequantize"] += 1
        return name

    def _new_op(self, op_type: str, source: str, target: str) -> Op:
        return Op(op_type, self.graph.unique_op_name(f"{target}_{op_type.lower()}"),
                  [source], [target], {}, f"{op_type} inserted by the uint8 pass")

    def quantize_op(self, op: Op) -> None:
        kernel = UINT8_KERNELS[op.type]
        graph = self.graph
        activations = _activation_inputs(kernel, op)
        varying = _varying_weight(graph, kernel, op)
        if varying:
            activations.append(kernel.weight)
        for index in activations:
            op.inputs[index] = self.uint8_input(op.inputs[index])
        input_quant = graph.tensor(op.inputs[activations[0]]).quant
        weight_quant = None
        if kernel.weight is not None and not varying and kernel.weight < len(op.inputs):
            weight_quant = self.quantize_weight(op, kernel)
        if kernel.bias is not None and kernel.bias < len(op.inputs) and op.inputs[kernel.bias]:
            name = op.inputs[kernel.bias]
            values, bias_quant = scheme.bias_int32(graph.const(name).reshape(-1),
                                                   input_quant.scale, weight_quant,
                                                   f"{op.describe()}: bias '{name}'")
            op.inputs[kernel.bias] = graph.add_quantized_const(f"{name}_q", values, bias_quant)
        for index, out in enumerate(op.outputs):
            if kernel.output == KEEP_INPUT:
                quant = replace(input_quant)
            elif kernel.output == FIXED:
                scale, zero_point = kernel.fixed_output
                quant = QuantParams(scale=scale, zero_point=zero_point,
                                    minval=-zero_point * scale, maxval=(255 - zero_point) * scale)
            else:
                quant = self.output_params(out, op)
            q_name = graph.unique_name(f"{out}_u8")
            graph.tensors[q_name] = _uint8_tensor(graph, q_name, out, quant)
            op.outputs[index] = q_name
            del graph.tensors[out]                 # until a float reader needs it back
            self.uint8_of[out] = q_name
        op.args["T"] = DT_UINT8
        self.counts["quantized"] += 1

    def quantize_weight(self, op: Op, kernel: Uint8Kernel) -> QuantParams:
        """Replaces the constant weight input by its int8 per-channel or
        uint8 per-tensor form; returns its quantization."""
        graph = self.graph
        name = op.inputs[kernel.weight]
        weight = graph.const(name)
        what = f"{op.describe()}: weight '{name}'"
        layout = kernel.channel_layout
        imported = self.settings.weight_scales.get(name) if kernel.per_channel else None
        if imported is not None and not scheme.fits_scales(weight, imported, layout):
            imported = None        # a transform changed the weight: own scales
        if kernel.per_channel and (self.settings.per_channel or imported is not None):
            values, weight_quant = scheme.weight_int8_per_channel(weight, what, imported, layout)
        else:
            values, weight_quant = scheme.weight_uint8(weight, what)
        op.inputs[kernel.weight] = graph.add_quantized_const(f"{name}_q", values, weight_quant)
        return weight_quant

    def shape(self, name: str) -> Optional[tuple[int, ...]]:
        return self.graph.tensor(self.uint8_of.get(name, name)).shape

    def fixed_output_fits(self, op: Op) -> bool:
        """An output of fixed quantization (Softmax: steps of 1/256) whose
        measured values all stay below FIXED_OUTPUT_MIN_PEAK would keep only
        a few codes: a near-uniform softmax over many classes rounds to 0
        almost everywhere. Such an op stays float, and the log says so."""
        kernel = UINT8_KERNELS[op.type]
        if kernel.output != FIXED:
            return True
        peak = max((self.settings.ranges[out][1] for out in op.outputs
                    if out in self.settings.ranges), default=None)
        if peak is None or peak >= FIXED_OUTPUT_MIN_PEAK:
            return True
        self.graph.log.append(
            f"uint8: {op.describe()} stays float: its output peaks at {peak:.3g} over the "
            f"calibration inputs, {peak / kernel.fixed_output[0]:.1f} steps of its fixed uint8 "
            f"scale {kernel.fixed_output[0]:g}")
        return False

    def inherit_fixed_params(self) -> None:
        """An imported quantization of a Reshape's or Transpose's input
        holds for its output, and the other way round (the values are the
        same): a MatMul the frontend wrote as Reshape, FullyConnected,
        Reshape then reads and writes with the quantization its QDQ model
        gives the MatMul's input and output."""
        fixed = self.settings.fixed
        if not fixed:
            return
        moves = [op for op in self.graph.ops
                 if op.type in MOVES_VALUES and op.inputs and op.outputs
                 and not self.graph.is_const(op.inputs[0])]
        for op in moves:                     # input to output
            if op.inputs[0] in fixed and op.outputs[0] not in fixed:
                fixed[op.outputs[0]] = replace(fixed[op.inputs[0]])
        for op in reversed(moves):           # output to input
            if op.outputs[0] in fixed and op.inputs[0] not in fixed:
                fixed[op.inputs[0]] = replace(fixed[op.outputs[0]])

    def drops_fake_quant(self, op: Op) -> bool:
        """Whether `op` is half of a fake quantization whose input is uint8
        already, with its very scale and zero point: the uint8 tensor holds
        exactly the rounded, saturated values, so the op is dropped and its
        output is that tensor. A fake quantization of a float tensor, or
        with other parameters, computes in float."""
        if op.type == "QuantizeLinear" and op.outputs[0] in self.fake_quant:
            params = self.fake_quant[op.outputs[0]]
            source = self.uint8_of.get(op.inputs[0])
            if params is None or source is None:
                return False
            quant = self.graph.tensor(source).quant
            if (quant.scale, quant.zero_point) != (params.scale, params.zero_point):
                return False
        elif op.type == "DequantizeLinear" and op.inputs[0] in self.fake_quant:
            source = self.uint8_of.get(op.inputs[0])
            if source is None:
                return False
            self.counts["fake"] += 1
        else:
            return False
        self.uint8_of[op.outputs[0]] = source
        self.graph.tensors.pop(op.outputs[0], None)
        return True

    def has_params(self, name: str) -> bool:
        """With calibrated ranges every tensor has one, and a missing one is
        an error worth reporting (params); an imported QDQ model quantizes
        only the tensors it has scales for."""
        return bool(self.settings.ranges) or name in self.settings.fixed \
            or name in self.uint8_of

    def uint8_edges(self) -> None:
        """Drops the Quantize of a graph input and the Dequantize of a graph
        output where nothing else needs the float tensor: the app then feeds
        and reads uint8 (InputOutputInfo carries the scale and zero point)."""
        graph = self.graph
        consumers = graph.consumers()
        for name in graph.inputs:
            users = consumers.get(name, [])
            if len(users) != 1 or users[0].type != "Quantize" or name in graph.outputs:
                continue
            quantize = users[0]
            graph.ops.remove(quantize)
            uint8 = graph.tensors.pop(quantize.outputs[0])
            graph.tensors[name] = Tensor(name, uint8.shape, UINT8, None, uint8.quant)
            graph.replace_uses(quantize.outputs[0], name)
            self.counts["quantize"] -= 1
        producers = graph.producers()
        for name in list(graph.outputs):
            dequantize = producers.get(name)
            if dequantize is None or dequantize.type != "Dequantize" or consumers.get(name):
                continue
            graph.ops.remove(dequantize)
            del graph.tensors[name]
            graph.rename_tensor(dequantize.inputs[0], name)
            self.counts["dequantize"] -= 1

    def run(self) -> None:
        graph = self.graph
        known = set(graph.tensors) | set(graph.inputs)
        check_names(self.settings.ranges, known, self.settings.source)
        for op in graph.ops:
            if self.drops_fake_quant(op):
                continue
            if quantizable(graph, op, self.has_params, lambda name: name in self.uint8_of,
                           self.shape) and self.fixed_output_fits(op):
                self.quantize_op(op)
            else:
                op.inputs = [self.float_input(n) if n else n for n in op.inputs]
            self.ops.append(op)
        graph.ops = self.ops
        graph.outputs = [self.float_input(name) for name in graph.outputs]
        graph.prune()
        if self.settings.uint8_io:
            self.uint8_edges()
        graph.log.append(f"uint8: {self.counts['quantized']} op(s) quantized, "
                         f"{self.counts['quantize']} Quantize and {self.counts['dequantize']} "
                         "Dequantize inserted at float/uint8 boundaries")
        kept = len(self.fake_quant) - self.counts["fake"]
        if self.fake_quant:
            graph.log.append(f"uint8: {self.counts['fake']} fake quantization(s) of the QDQ "
                             f"model are uint8 tensors; {kept} compute in float")
        kept = sorted({op.type for op in graph.ops if op.args.get("T") != DT_UINT8
                       and op.type not in ("Quantize", "Dequantize")})
        if kept:
            graph.log.append(f"uint8: kept in float (no uint8 kernel or not quantizable): "
                             f"{', '.join(kept)}")


def _uint8_tensor(graph: Graph, name: str, like: str, quant: QuantParams) -> Tensor:
    return Tensor(name, graph.tensor(like).shape, UINT8, None, quant)


def quantize_graph(graph: Graph, settings: QuantizeSettings) -> None:
    _Pass(graph, settings).run()
