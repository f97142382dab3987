"""The quantization pass: ops with a uint8 engine kernel (UINT8_KERNELS)
become uint8 ops; every other op stays float, with Quantize and Dequantize
inserted where float and uint8 regions meet, so the app still feeds and
reads float.

Run on the float graph after the float transforms, with activation ranges
keyed by the float graph's tensor names (what `mace_run --quantize_stat`
reports for the float model).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.ir import FLOAT32, UINT8, Graph, Op, QuantParams, Tensor
from mace_converter.quantize import scheme
from mace_converter.quantize.ranges import Ranges, check_names

# The DataType value of DT_UINT8 (mace/proto/mace.proto), for the "T" arg.
DT_UINT8 = 2
# Activations the uint8 kernels fold into their output clamp.
CLAMPABLE = ("NOOP", "RELU", "RELU6", "RELUX")


@dataclass(frozen=True)
class Uint8Kernel:
    """How the converter quantizes one op type that the engine registers as
    (type, CPU, DT_UINT8). `weight`/`bias` are input indices of constants."""
    weight: Optional[int] = None
    bias: Optional[int] = None
    # int8 symmetric per output channel (else uint8 per tensor).
    per_channel: bool = False
    # Extra condition on the op, e.g. arguments the kernel cannot take.
    accepts: Callable[[Op], bool] = lambda op: True


def _fused_clampable(op: Op) -> bool:
    return op.args.get("activation", "NOOP") in CLAMPABLE


# One entry per op type with a uint8 CPU kernel in the engine. A test checks
# that every entry is registered in mace/ops; add an op here when its uint8
# kernel lands.
UINT8_KERNELS: dict[str, Uint8Kernel] = {
    "Conv2D": Uint8Kernel(weight=1, bias=2, per_channel=True, accepts=_fused_clampable),
}


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


def quantizable(graph: Graph, op: Op, has_params: Callable[[str], bool],
                is_uint8: Callable[[str], bool]) -> bool:
    """Whether `op` gets its uint8 kernel: a kernel exists and accepts its
    arguments, its weights are constants, and every activation it reads or
    writes has quantization parameters."""
    kernel = UINT8_KERNELS.get(op.type)
    if kernel is None or not kernel.accepts(op):
        return False
    for index, name in enumerate(op.inputs):
        if not name:
            continue
        const = index in (kernel.weight, kernel.bias)
        if const != graph.is_const(name):
            return False
        if not const and not is_uint8(name) and (graph.tensor(name).dtype != FLOAT32
                                                 or not has_params(name)):
            return False
    return all(graph.tensor(out).dtype == FLOAT32 and has_params(out) for out in op.outputs)


class _Pass:
    def __init__(self, graph: Graph, settings: QuantizeSettings):
        self.graph = graph
        self.settings = settings
        self.quantized_of: dict[str, str] = {}    # float tensor -> its Quantize output
        self.uint8_of: dict[str, str] = {}        # float name -> uint8 op output
        self.dequantized: set[str] = set()
        self.ops: list[Op] = []
        self.counts = {"quantized": 0, "quantize": 0, "dequantize": 0}

    def params(self, name: str) -> QuantParams:
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
        activation can produce, so no code of the uint8 range is wasted."""
        if name in self.settings.fixed or name not in self.settings.ranges:
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
        x = op.inputs[0]
        op.inputs[0] = self.uint8_input(x)
        input_quant = graph.tensor(op.inputs[0]).quant
        weight_quant = None
        if kernel.weight is not None:
            name = op.inputs[kernel.weight]
            weight = graph.const(name)
            what = f"{op.describe()}: weight '{name}'"
            imported = self.settings.weight_scales.get(name) if kernel.per_channel else None
            if imported is not None and not scheme.fits_scales(weight, imported):
                imported = None        # a transform changed the weight: own scales
            if kernel.per_channel and (self.settings.per_channel or imported is not None):
                values, weight_quant = scheme.weight_int8_per_channel(weight, what, imported)
            else:
                values, weight_quant = scheme.weight_uint8(weight, what)
            op.inputs[kernel.weight] = graph.add_quantized_const(f"{name}_q", values,
                                                                 weight_quant)
        if kernel.bias is not None and kernel.bias < len(op.inputs) and op.inputs[kernel.bias]:
            name = op.inputs[kernel.bias]
            values, bias_quant = scheme.bias_int32(graph.const(name).reshape(-1),
                                                   input_quant.scale, weight_quant,
                                                   f"{op.describe()}: bias '{name}'")
            op.inputs[kernel.bias] = graph.add_quantized_const(f"{name}_q", values, bias_quant)
        for index, out in enumerate(op.outputs):
            quant = self.output_params(out, op)
            q_name = graph.unique_name(f"{out}_u8")
            graph.tensors[q_name] = _uint8_tensor(graph, q_name, out, quant)
            op.outputs[index] = q_name
            del graph.tensors[out]                 # until a float reader needs it back
            self.uint8_of[out] = q_name
        op.args["T"] = DT_UINT8
        self.counts["quantized"] += 1

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
            if quantizable(graph, op, self.has_params, lambda name: name in self.uint8_of):
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
        kept = sorted({op.type for op in graph.ops if op.args.get("T") != DT_UINT8
                       and op.type not in ("Quantize", "Dequantize")})
        if kept:
            graph.log.append(f"uint8: kept in float (no uint8 kernel or not quantizable): "
                             f"{', '.join(kept)}")


def _uint8_tensor(graph: Graph, name: str, like: str, quant: QuantParams) -> Tensor:
    return Tensor(name, graph.tensor(like).shape, UINT8, None, quant)


def quantize_graph(graph: Graph, settings: QuantizeSettings) -> None:
    _Pass(graph, settings).run()
