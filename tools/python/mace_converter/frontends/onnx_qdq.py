"""QuantizeLinear / DequantizeLinear of ONNX QDQ models (what
onnxruntime.quantization.quantize_static writes), and QLinearConv.

On activations the pair is a no-op in the float graph; its scale and zero
point are kept (Graph.imported_quant) so the uint8 pass quantizes the
tensor exactly as the model says. On weights the DequantizeLinear folds to
a float constant at import; its scales are kept (Graph.imported_weight_scales,
via record_weight_scales) so the pass can recover the model's integers.
"""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.ir import QuantParams


def _params(node: Node) -> QuantParams | None:
    """uint8 per-tensor activation quantization, or None (int8 or per-axis
    activations are left to the float graph)."""
    scale = node.const(1, "scale")
    zero_point = node.optional_const(2, "zero point") if node.has_input(2) else None
    if scale.size != 1 or (zero_point is not None and zero_point.size != 1):
        return None
    if zero_point is None:    # ONNX's default zero point is a uint8 0
        zero_point = np.zeros(1, np.uint8)
    return _scalar_params(node, float(scale.reshape(-1)[0]), zero_point)


@converter("QuantizeLinear", "DequantizeLinear")
def quantize_linear(node: Node) -> None:
    source = node.inputs[0]
    quant = _params(node) if node.op_type == "QuantizeLinear" else \
        node.graph.imported_quant.get(source) or _params(node)
    node.emit_out("Identity", [node.tensor(0)])
    if quant is None:
        node.graph.log.append(f"{node.where()}: not uint8 per-tensor; the tensor stays float")
        return
    for name in (source, node.outputs[0]):
        node.graph.imported_quant[name] = quant


def dequantize_const(node: Node) -> np.ndarray:
    """(q - zero_point) * scale of a constant, per tensor or along `axis`."""
    values = node.const(0).astype(np.float64)
    scale = node.const(1, "scale").astype(np.float64)
    zero_point = node.const(2).astype(np.float64) if node.has_input(2) else np.zeros(1)
    if scale.size > 1:
        axis = int(node.attr("axis", 1)) % values.ndim
        shape = [1] * values.ndim
        shape[axis] = -1
        scale, zero_point = scale.reshape(shape), zero_point.reshape(
            shape if zero_point.size > 1 else [1] * values.ndim)
    return ((values - zero_point) * scale).astype(np.float32)


def record_weight_scales(node: Node) -> None:
    """After a DequantizeLinear of a constant folded: remember its scales,
    per output channel for a symmetric int8 weight."""
    if not node.is_const(0) or not node.is_const(1):
        return
    values = node.const(0)
    zero_point = node.const(2) if node.has_input(2) else np.zeros(1, np.int8)
    if values.dtype != np.int8 or np.any(zero_point != 0):
        return
    node.graph.imported_weight_scales[node.outputs[0]] = np.asarray(
        node.const(1), dtype=np.float32).reshape(-1)


@converter("QLinearConv")
def qlinear_conv(node: Node) -> None:
    """A Conv on dequantized values, between the input's and the output's
    quantization: the uint8 pass turns it back into a uint8 Conv2D with the
    model's own scales."""
    from mace_converter.frontends.onnx_nn import conv
    x, (x_scale, x_zp) = node.inputs[0], (node.const(1, "x_scale"), node.const(2, "x_zero_point"))
    weight, w_scale = node.const(3, "w"), node.const(4, "w_scale").astype(np.float64)
    w_zp = node.const(5, "w_zero_point").astype(np.float64)
    if x_scale.size != 1 or node.const(6, "y_scale").size != 1:
        raise node.fail("per-axis activation scales are not supported")
    shape = [-1] + [1] * (weight.ndim - 1)
    units = w_scale.reshape(shape if w_scale.size > 1 else [1] * weight.ndim)
    zero = w_zp.reshape(shape if w_zp.size > 1 else [1] * weight.ndim)
    values = node.values
    w_name, b_name = f"{node.inputs[3]}_dequantized", ""
    values[w_name] = ((weight.astype(np.float64) - zero) * units).astype(np.float32)
    if weight.dtype == np.int8 and not np.any(w_zp):
        node.graph.imported_weight_scales[w_name] = w_scale.astype(np.float32).reshape(-1)
    if node.has_input(8):
        b_name = f"{node.inputs[8]}_dequantized"
        unit = float(x_scale.reshape(-1)[0]) * w_scale.reshape(-1)
        values[b_name] = (node.const(8, "B").astype(np.float64) * unit).astype(np.float32)
    x_params = _scalar_params(node, float(x_scale.reshape(-1)[0]), x_zp)
    y_params = _scalar_params(node, float(node.const(6).reshape(-1)[0]), node.const(7))
    inner = Node(node.graph, "Conv", node.name, node.index,
                 [x, w_name] + ([b_name] if b_name else []), node.outputs, node.attrs, values,
                 node.ir_consts, node.opset)
    conv(inner)
    for name, params in ((x, x_params), (node.outputs[0], y_params)):
        if params is not None:
            node.graph.imported_quant.setdefault(name, params)


def _scalar_params(node: Node, scale: float, zero_point: np.ndarray) -> QuantParams | None:
    if zero_point.dtype != np.uint8:
        return None
    if not (np.isfinite(scale) and scale > 0):
        raise node.fail(f"scale {scale} must be finite and positive")
    zp = int(zero_point.reshape(-1)[0])
    return QuantParams(scale=scale, zero_point=zp, minval=scale * -zp, maxval=scale * (255 - zp))
