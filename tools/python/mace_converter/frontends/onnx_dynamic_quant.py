"""Dynamic quantization, as onnxruntime.quantization.quantize_dynamic writes
it: DynamicQuantizeLinear (an activation quantized to uint8 with a scale and
zero point computed from its own range on every run), MatMulInteger and
ConvInteger (integer products of zero-point-shifted operands), and the
com.microsoft ops DynamicQuantizeMatMul and MatMulIntegerToFloat.

The integers are carried in float32, as the float-domain QuantizeLinear
does: a shifted uint8 or int8 value is exact, and so is a product sum below
2^24; past that it rounds as a float sum does. Constant weights are shifted
(or dequantized) at conversion, so the products run through the float
FullyConnected, MatMul and Conv2D kernels.
"""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.frontends.onnx_qdq import fake_quantize, float32_input, scales

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
    a = _shifted(node, 0, 2, "A", -2)
    b = _shifted(node, 1, 3, "B", -1)
    matmul(_inner(node, "MatMul", [a, b], list(node.outputs[:1])))


@converter("ConvInteger")
def conv_integer(node: Node) -> None:
    """Conv of (x - x_zero_point) with (w - w_zero_point), a zero point per
    output channel of w allowed. Padding adds x_zero_point, which the shift
    turns into the 0 the Conv pads with."""
    from mace_converter.frontends.onnx_nn import conv
    if node.has_input(3) and not node.is_const(3):
        raise node.fail("w_zero_point must be a constant")
    if node.has_input(2) and node.is_const(2) and node.const(2).size != 1:
        raise node.fail("x_zero_point must hold one value")
    x = _shifted(node, 0, 2, "x", 1)
    w = _shifted(node, 1, 3, "w", 0)
    conv(_inner(node, "Conv", [x, w], list(node.outputs[:1]), node.attrs))


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
    and dequantized again, times B dequantized, plus the bias."""
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
    run-time scale and zero point), multiplied, plus the bias."""
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
