"""QuantizeLinear / DequantizeLinear of ONNX QDQ models (what
onnxruntime.quantization.quantize_static writes).

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
    if zero_point is not None and zero_point.dtype != np.uint8:
        return None
    zp = int(zero_point.reshape(-1)[0]) if zero_point is not None else 0
    s = float(scale.reshape(-1)[0])
    if not (np.isfinite(s) and s > 0):
        raise node.fail(f"scale {s} must be finite and positive")
    return QuantParams(scale=s, zero_point=zp, minval=s * (0 - zp), maxval=s * (255 - zp))


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
