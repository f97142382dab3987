"""Dynamic quantization, as onnxruntime.quantization.quantize_dynamic writes
it: DynamicQuantizeLinear (an activation quantized to uint8 with a scale and
zero point computed from its own range on every run), MatMulInteger and
ConvInteger (integer products of zero-point-shifted operands), and the
com.microsoft ops DynamicQuantizeMatMul and MatMulIntegerToFloat.

A product of a constant 2-D int8 or uint8 weight runs as exact integers:
the chain DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul by the
product of the scales (or Mul by each) [-> Add of a constant bias], a
MatMulIntegerToFloat reading a DynamicQuantizeLinear, and a
DynamicQuantizeMatMul become one DynamicQuantizedFullyConnected in its
per-tensor mode (plan() finds the chains before the nodes convert). The
rest runs in float emulation: the integers are carried in float32, as the
float-domain QuantizeLinear does: a shifted uint8 or int8 value is exact,
and so is a product sum below 2^24; past that it rounds as a float sum
does. Constant weights are shifted (or dequantized) at conversion, so
those products run through the float FullyConnected, MatMul and Conv2D
kernels. The conversion log names the path of every node.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.frontends.onnx_qdq import (constants_of, fake_quantize, float32_input,
                                                scales, uses_of)
from mace_converter.ir import QuantParams

# com.microsoft ops this module converts.
MICROSOFT_OPS = ("DynamicQuantizeMatMul", "MatMulIntegerToFloat")

# Eltwise types (mace/ops/eltwise.h).
_SUB, _PROD, _DIV, _MIN, _MAX, _NEG = 1, 2, 3, 4, 5, 6
# A range of all zeros gives scale 0, and every scale gives the same
# integers then (all equal to the zero point, 0): this one avoids 0 / 0.
_SMALLEST_SCALE = float(np.finfo(np.float32).tiny)


def _scalar_op(node: Node, source: str, kind: int, value: float) -> str:
    return node.emit("Eltwise", [source], {"type": kind, "scalar_input": float(value),
                                           "scalar_input_index": 1}).outputs[0]


def _reduce_all(node: Node, source: str, reduce_type: int) -> str:
    rank = len(node.graph.shape(source))
    return node.emit("Reduce", [source], {"reduce_type": reduce_type,
                                          "axis": list(range(rank)),
                                          "keepdims": 0}).outputs[0]


def dynamic_params(node: Node, x: str) -> tuple[str, str]:
    """ONNX DynamicQuantizeLinear's scale and zero point of tensor `x`, as
    one-value tensors: the range widened to hold 0, over 255 steps; the
    zero point -min / scale, saturated to [0, 255] and rounded half to
    even."""
    low = _scalar_op(node, _reduce_all(node, x, 1), _MIN, 0.0)
    high = _scalar_op(node, _reduce_all(node, x, 2), _MAX, 0.0)
    span = node.emit("Eltwise", [high, low], {"type": _SUB}).outputs[0]
    scale = _scalar_op(node, _scalar_op(node, span, _DIV, 255.0), _MAX, _SMALLEST_SCALE)
    shifted = node.emit("Eltwise", [low, scale], {"type": _DIV}).outputs[0]
    zero = node.emit("Eltwise", [shifted], {"type": _NEG}).outputs[0]
    zero = _scalar_op(node, _scalar_op(node, zero, _MAX, 0.0), _MIN, 255.0)
    zero = node.emit("Unary", [zero], {"type": "ROUND"}).outputs[0]
    return scale, zero


_UINT8_ARGS = {"axis": 1, "block_size": 0, "to": "UINT8", "saturate": 1}


@converter("DynamicQuantizeLinear")
def dynamic_quantize_linear(node: Node) -> None:
    """y (uint8 values carried in float32), y_scale and y_zero_point."""
    scale, zero = dynamic_params(node, node.tensor(0))
    node.emit("QuantizeLinear", [node.tensor(0), scale, zero], _UINT8_ARGS,
              outputs=[node.outputs[0]])
    for source, index in ((scale, 1), (zero, 2)):
        if len(node.outputs) > index and node.outputs[index]:
            node.emit("Reshape", [source], {"shape": []}, outputs=[node.outputs[index]])


def _shifted(node: Node, index: int, zero_index: int, what: str, axis_of_many: int) -> str:
    """Input `index` minus its zero point (input `zero_index`, absent for
    0): a constant is shifted now, a computed tensor by an Eltwise. A zero
    point of several values lies along `axis_of_many` (a per-row zero
    point of A, a per-column or per-channel one of B)."""
    has_zero = node.has_input(zero_index)
    if node.is_const(index) and (not has_zero or node.is_const(zero_index)):
        values = node.const(index, what).astype(np.float64)
        if has_zero:
            zero = node.const(zero_index, f"{what} zero point").astype(np.float64)
            values = values - _along(node, zero, values.ndim, axis_of_many, what)
        name = node.graph.unique_name(f"{node.inputs[index]}_shifted")
        node.values[name] = values.astype(np.float32)
        return name
    source = node.tensor(index)
    if not has_zero:
        return source
    zero = node.tensor(zero_index)
    if node.is_const(zero_index) and node.const(zero_index).size > 1:
        rank = len(node.shape(index))
        value = _along(node, node.const(zero_index).astype(np.float64), rank, axis_of_many,
                       what)
        zero = node.weight(f"{node.inputs[zero_index]}_float32", value.astype(np.float32))
    return node.emit("Eltwise", [source, zero], {"type": _SUB}).outputs[0]


def _along(node: Node, values: np.ndarray, rank: int, axis: int, what: str) -> np.ndarray:
    """A zero point (or scale) of one value, or of one value per index of
    `axis`, shaped to broadcast over a tensor of `rank`."""
    if values.size == 1:
        return values.reshape([1] * rank)
    shape = [1] * rank
    shape[axis % rank] = -1
    try:
        return values.reshape(shape)
    except ValueError:
        raise node.fail(f"{what} has {values.size} zero points or scales, which do not "
                        f"match its axis {axis % rank}") from None


def _inner(node: Node, op_type: str, inputs: list[str], outputs: list[str],
           attrs: dict | None = None) -> Node:
    return Node(node.graph, op_type, node.name, node.index, inputs, outputs,
                attrs if attrs is not None else {}, node.values, node.ir_consts, node.opset)


@converter("MatMulInteger")
def matmul_integer(node: Node) -> None:
    """(A - a_zero_point) x (B - b_zero_point), a zero point per row of A
    or per column of B allowed."""
    from mace_converter.frontends.onnx_nn import matmul
    _log_emulation(node)
    a = _shifted(node, 0, 2, "A", -2)
    b = _shifted(node, 1, 3, "B", -1)
    matmul(_inner(node, "MatMul", [a, b], list(node.outputs[:1])))


@converter("ConvInteger")
def conv_integer(node: Node) -> None:
    """Conv of (x - x_zero_point) with (w - w_zero_point), a zero point per
    output channel of w allowed. Padding adds x_zero_point, which the shift
    turns into the 0 the Conv pads with."""
    from mace_converter.frontends.onnx_nn import conv
    _log_emulation(node, "no integer convolution")
    if node.has_input(3) and not node.is_const(3):
        raise node.fail("w_zero_point must be a constant")
    if node.has_input(2) and node.is_const(2) and node.const(2).size != 1:
        raise node.fail("x_zero_point must hold one value")
    x = _shifted(node, 0, 2, "x", 1)
    w = _shifted(node, 1, 3, "w", 0)
    conv(_inner(node, "Conv", [x, w], list(node.outputs[:1]), node.attrs))


def _log_emulation(node: Node, reason: str = "") -> None:
    planned = getattr(node.graph, "integer_matmuls", None)
    if not reason and planned is not None:
        reason = planned.reasons.get(node.outputs[0], "")
    node.graph.log.append(f"{node.op_type} '{node.name or node.outputs[0]}': float emulation"
                          + (f" ({reason})" if reason else ""))


def _dequantized_weight(node: Node, index: int, scale_index: int, zero_index: int) -> str:
    """A constant int8/uint8 B dequantized with its scale and zero point,
    one value or one per column."""
    if not node.is_const(index) or not node.is_const(scale_index) or (
            node.has_input(zero_index) and not node.is_const(zero_index)):
        raise node.fail("B, its scale and its zero point must be constants")
    values = node.const(index, "B").astype(np.float64)
    scale = scales(node, scale_index, "b_scale").astype(np.float64)
    zero = node.const(zero_index, "b_zero_point").astype(np.float64) \
        if node.has_input(zero_index) else np.zeros(1)
    rank = values.ndim
    dequantized = (values - _along(node, zero, rank, -1, "B")) * _along(node, scale, rank, -1,
                                                                      "B")
    name = node.graph.unique_name(f"{node.inputs[index]}_dequantized")
    node.values[name] = dequantized.astype(np.float32)
    return name


def _with_bias(node: Node, product_node, bias_index: int) -> None:
    """Runs `product_node` (writing this node's output, or a new tensor when
    a bias follows) and adds input `bias_index` if present."""
    from mace_converter.frontends.onnx_nn import matmul
    if not node.has_input(bias_index):
        matmul(product_node)
        return
    product = node.graph.unique_name(f"{node.outputs[0]}_product")
    product_node.outputs = [product]
    matmul(product_node)
    node.emit_out("Eltwise", [product, node.tensor(bias_index)], {"type": 0})


@converter("DynamicQuantizeMatMul")
def dynamic_quantize_matmul(node: Node) -> None:
    """com.microsoft DynamicQuantizeMatMul(A, B, b_scale, b_zero_point,
    bias): A quantized to uint8 from its own range (DynamicQuantizeLinear)
    times B, plus the bias: the integer op for a constant 2-D B and bias,
    else in float emulation (A dequantized again, times B dequantized)."""
    reason = _weight_reason(node.values, node.inputs[1], node.inputs[3] if node.has_input(3)
                            else "", node.inputs[2])
    if not reason and node.has_input(4) and _bias(node.values, node.inputs[4],
                                                  node.inputs[1]) is None:
        reason = "the bias is not a constant of one value per column"
    if not reason:
        _integer_product(node, 0, 1, 3, 2, 4)
        node.graph.log.append(f"DynamicQuantizeMatMul '{node.name or node.outputs[0]}': integer "
                              "DynamicQuantizedFullyConnected")
        return
    _log_emulation(node, reason)
    a = node.tensor(0)
    scale, zero = dynamic_params(node, a)
    rounded = node.graph.unique_name(f"{node.inputs[0]}_dynamic")
    fake_quantize(node, a, rounded, scale, zero, _UINT8_ARGS, None)
    b = _dequantized_weight(node, 1, 2, 3)
    _with_bias(node, _inner(node, "MatMul", [rounded, b], list(node.outputs[:1])), 4)


@converter("MatMulIntegerToFloat")
def matmul_integer_to_float(node: Node) -> None:
    """com.microsoft MatMulIntegerToFloat(A, B, a_scale, b_scale,
    a_zero_point, b_zero_point, bias): A and B dequantized (A with its
    run-time scale and zero point), multiplied, plus the bias (where plan()
    found no integer path)."""
    _log_emulation(node)
    inputs = [node.tensor(0), float32_input(node, 2)]
    if node.has_input(4):
        inputs.append(float32_input(node, 4))
    a = node.emit("DequantizeLinear", inputs, {"axis": 1, "block_size": 0}).outputs[0]
    if node.is_const(1):
        b = _dequantized_weight(node, 1, 3, 5)
    else:
        inputs = [node.tensor(1), float32_input(node, 3)] + (
            [float32_input(node, 5)] if node.has_input(5) else [])
        b = node.emit("DequantizeLinear", inputs, {"axis": 1, "block_size": 0}).outputs[0]
    _with_bias(node, _inner(node, "MatMul", [a, b], list(node.outputs[:1])), 6)


# ---- the integer path --------------------------------------------------------
@dataclass
class IntegerMatMul:
    """A dynamically quantized product of a constant weight that converts
    as one DynamicQuantizedFullyConnected, when its last node converts."""
    x: str              # the float input the DynamicQuantizeLinear quantizes
    weight: str         # B [K, N], int8 or uint8
    weight_zero: str    # B's zero point, or ""
    weight_scale: str   # B's scale (one or N values)
    bias: str           # a constant bias of N values, or ""
    what: str           # the nodes, for the log


@dataclass
class IntegerPlan:
    """What plan() found in a graph."""
    # By the first output of the chain's last node.
    fused: dict[str, IntegerMatMul] = field(default_factory=dict)
    # First outputs of the chains' other nodes, which convert to nothing.
    skipped: set[str] = field(default_factory=set)
    # Why a MatMulInteger or MatMulIntegerToFloat stays in float emulation,
    # by its output.
    reasons: dict[str, str] = field(default_factory=dict)


def _weight_reason(constants: dict, b: str, zero: str, scale: str) -> str:
    """Why B and its zero point and scale (names, "" to skip the check)
    cannot take the integer op ("" if they can)."""
    value = constants.get(b)
    if value is None:
        return "B is not a constant"
    if value.ndim != 2 or value.dtype not in (np.int8, np.uint8):
        return f"B is {value.dtype} of rank {value.ndim}, not a 2-D int8 or uint8 matrix"
    columns = value.shape[1]
    for name, what in ((zero, "B's zero point"), (scale, "B's scale")):
        if not name:
            continue
        param = constants.get(name)
        if param is None:
            return f"{what} is not a constant"
        if param.size not in (1, columns):
            return f"{what} has {param.size} values, not 1 or {columns}"
    return ""


def plan(graph_proto, outputs: list[str]) -> IntegerPlan:
    """The dynamically quantized products of `graph_proto` (not its
    subgraphs) that run as DynamicQuantizedFullyConnected ops."""
    constants = constants_of(graph_proto)
    producers = {out: proto for proto in graph_proto.node for out in proto.output if out}
    readers: dict[str, list] = {}
    for proto in graph_proto.node:
        for name in proto.input:
            readers.setdefault(name, []).append(proto)
    counts: dict[str, int] = {}
    for _, name in uses_of(graph_proto):
        counts[name] = counts.get(name, 0) + 1
    for name in outputs:
        counts[name] = counts.get(name, 0) + 1

    def only_reader(name: str, op_type: str):
        """The one node reading `name`, if it is of `op_type` and nothing
        else (no other node, subgraph or graph output) reads `name`."""
        found = readers.get(name, [])
        if counts.get(name, 0) == 1 and len(found) == 1 and found[0].op_type == op_type:
            return found[0]
        return None

    def quantizer(proto, a: int, a_scale: Optional[int], a_zero: int):
        """The DynamicQuantizeLinear whose outputs are inputs a, a_scale
        (None: not an input) and a_zero of `proto`."""
        inputs = list(proto.input) + [""] * 8
        source = producers.get(inputs[a])
        if source is None or source.op_type != "DynamicQuantizeLinear" or \
                len(source.output) < 3 or inputs[a] != source.output[0] or \
                inputs[a_zero] != source.output[2] or \
                (a_scale is not None and inputs[a_scale] != source.output[1]):
            return None
        return source

    result = IntegerPlan()
    for proto in graph_proto.node:
        inputs = list(proto.input) + [""] * 8
        if proto.op_type == "MatMulIntegerToFloat" and proto.domain == "com.microsoft":
            source = quantizer(proto, 0, 2, 4)
            reason = "A is not a DynamicQuantizeLinear's output with its scale and zero " \
                "point" if source is None else \
                _weight_reason(constants, inputs[1], inputs[5], inputs[3])
            if not reason and inputs[6] and _bias(constants, inputs[6], inputs[1]) is None:
                reason = "the bias is not a constant of one value per column"
            if reason:
                result.reasons[proto.output[0]] = reason
                continue
            result.fused[proto.output[0]] = IntegerMatMul(
                source.input[0], inputs[1], inputs[5], inputs[3], inputs[6],
                f"MatMulIntegerToFloat '{_name(proto)}'")
            continue
        if proto.op_type != "MatMulInteger":
            continue
        source = quantizer(proto, 0, None, 2)
        reason = "A is not a DynamicQuantizeLinear's output with its zero point" \
            if source is None else _weight_reason(constants, inputs[1], inputs[3], "")
        chain = _scale_chain(proto, source, constants, producers, only_reader) \
            if not reason else None
        if chain is not None:
            reason = _weight_reason(constants, inputs[1], "", chain[1])
        if chain is None or reason:
            result.reasons[proto.output[0]] = reason or \
                "its output is not Cast to float and multiplied by the scales alone"
            continue
        nodes, scale = chain
        last = nodes[-1]
        bias = ""
        add = only_reader(last.output[0], "Add")
        if add is not None:
            other = add.input[1] if add.input[0] == last.output[0] else add.input[0]
            if _bias(constants, other, inputs[1]) is not None:
                bias = other
                nodes.append(add)
        result.skipped.update(n.output[0] for n in nodes[:-1])
        after = nodes[nodes.index(proto) + 1:]
        result.fused[nodes[-1].output[0]] = IntegerMatMul(
            source.input[0], inputs[1], inputs[3], scale, bias,
            f"MatMulInteger '{_name(proto)}' (+ {', '.join(n.op_type for n in after)})")
    return result


def _scale_chain(matmul, source, constants: dict, producers: dict, only_reader):
    """The nodes from MatMulInteger `matmul` on that turn its sums to float
    (Cast, then Mul by a_scale * b_scale, or Mul by a_scale then by
    b_scale), the last one last, and b_scale; None where the graph does
    something else. The Mul computing a_scale * b_scale is among the nodes
    when nothing else reads its product."""
    cast = only_reader(matmul.output[0], "Cast")
    if cast is None or _to(cast) != 1:
        return None
    mul = only_reader(cast.output[0], "Mul")
    if mul is None or len(mul.input) != 2:
        return None
    a_scale = source.output[1]
    other = mul.input[1] if mul.input[0] == cast.output[0] else mul.input[0]
    if other == a_scale:
        second = only_reader(mul.output[0], "Mul")
        if second is None or len(second.input) != 2:
            return None
        b_scale = second.input[1] if second.input[0] == mul.output[0] else second.input[0]
        return ([matmul, cast, mul, second], b_scale) if b_scale in constants else None
    product = producers.get(other)
    if product is None or product.op_type != "Mul" or len(product.input) != 2 or \
            a_scale not in product.input:
        return None
    b_scale = product.input[1] if product.input[0] == a_scale else product.input[0]
    if b_scale not in constants:
        return None
    owned = [product] if only_reader(other, "Mul") is mul else []
    return owned + [matmul, cast, mul], b_scale


def _name(proto) -> str:
    return proto.name or proto.output[0]


def _to(cast) -> int:
    for attribute in cast.attribute:
        if attribute.name == "to":
            return int(attribute.i)
    return 0


def _bias(constants: dict, name: str, b: str) -> Optional[np.ndarray]:
    """Constant `name` as a float32 bias of B's N columns, or None."""
    value = constants.get(name)
    columns = constants[b].shape[1]
    if value is None or value.dtype.kind != "f" or value.size != columns or \
            (value.ndim > 0 and value.shape[-1] != columns) or value.ndim > 1:
        return None
    return value.astype(np.float32).reshape(columns)


def integer_node(node: Node) -> bool:
    """Converts `node` as part of a planned integer product: nothing for a
    chain's inner node, the DynamicQuantizedFullyConnected for its last.
    False for the other nodes."""
    planned: Optional[IntegerPlan] = getattr(node.graph, "integer_matmuls", None)
    if planned is None or not node.outputs:
        return False
    if node.outputs[0] in planned.skipped:
        return True
    fused = planned.fused.get(node.outputs[0])
    if fused is None:
        return False
    inputs = [fused.x, fused.weight, fused.weight_zero, fused.weight_scale, fused.bias]
    inner = _inner(node, node.op_type, inputs, list(node.outputs[:1]))
    _integer_product(inner, 0, 1, 2, 3, 4)
    node.graph.log.append(f"{fused.what}: integer DynamicQuantizedFullyConnected")
    return True


def _integer_product(node: Node, x: int, b: int, zero: int, scale: int, bias: int) -> None:
    """Float x [..., K] times constant B [K, N] (int8 or uint8, zero point
    of one or N values, scale of one or N values) plus a constant bias, as
    a DynamicQuantizedFullyConnected quantizing x per tensor, written to
    node.outputs[0]."""
    weight = node.const(b, "B")
    columns = weight.shape[1]
    zero_point = node.const(zero).astype(np.int64).reshape(-1) if node.has_input(zero) \
        else np.zeros(1, np.int64)
    values = np.ascontiguousarray(weight.T)
    if weight.dtype == np.uint8:
        shifted = values.astype(np.int64) - zero_point.reshape(-1, 1)
        if shifted.min() >= -128 and shifted.max() <= 127:
            # The same integers as symmetric int8: no zero point to correct.
            values, zero_point = shifted.astype(np.int8), np.zeros(1, np.int64)
    scale = np.broadcast_to(np.asarray(node.const(scale, "b_scale"), np.float32).reshape(-1),
                            (columns,)).astype(np.float32)
    base = node.inputs[b]
    quantized = node.graph.add_quantized_const(
        f"{base}_weight", values, QuantParams(channel_scales=[float(v) for v in scale]))
    inputs = [None, quantized, node.weight(f"{base}_scale", scale)]
    if node.has_input(bias):
        inputs.append(node.weight(f"{base}_bias",
                                  np.asarray(node.const(bias), np.float32).reshape(columns)))
    args = {"per_tensor": 1}
    if zero_point.any():
        args["weight_zero_points"] = [int(v) for v in zero_point]
    shape = node.shape(x)
    if len(shape) == 2:
        inputs[0] = node.tensor(x)
        node.emit_out("DynamicQuantizedFullyConnected", inputs, args)
        return
    inputs[0] = node.emit("Reshape", [node.tensor(x)],
                          {"shape": [int(np.prod(shape[:-1])), shape[-1]]}).outputs[0]
    product = node.emit("DynamicQuantizedFullyConnected", inputs, args).outputs[0]
    node.emit_out("Reshape", [product], {"shape": list(shape[:-1]) + [columns]})
