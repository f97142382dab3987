"""com.microsoft DynamicQuantizeLSTM, as onnxruntime.quantization's
quantize_dynamic writes an LSTM: ONNX LSTM's inputs with W and R stored as
int8 or uint8, transposed ([directions, input, 4 * hidden] and
[directions, hidden, 4 * hidden]), each with a scale and zero point per
direction or per gate column.

The weights are dequantized at conversion and the node runs as the
engine's float LSTM. onnxruntime also rounds X and the hidden state to
uint8 (from their own ranges) before each product; this conversion keeps
them float, so its outputs differ from onnxruntime's by that rounding
(well under 1 %, see the exported-model tests), not by any weight error.
"""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.frontends.onnx_recurrent import recurrent

MICROSOFT_OPS = ("DynamicQuantizeLSTM",)


def _dequantized(node: Node, index: int, scale_index: int, zero_index: int, what: str) -> str:
    """Input `index` dequantized and put back in ONNX LSTM's layout
    [directions, 4 * hidden, size]."""
    for i in (index, scale_index) + ((zero_index,) if node.has_input(zero_index) else ()):
        if not node.is_const(i):
            raise node.fail(f"{what}, its scale and its zero point must be constants")
    values = np.asarray(node.const(index, what)).astype(np.float64)
    if values.ndim != 3:
        raise node.fail(f"{what} has shape {list(values.shape)}; it must have rank 3")
    dirs, _, columns = values.shape
    scale = np.asarray(node.const(scale_index)).astype(np.float64)
    zero = np.asarray(node.const(zero_index)).astype(np.float64) \
        if node.has_input(zero_index) else np.zeros_like(scale)
    for name, param in (("scale", scale), ("zero point", zero)):
        if param.shape not in ((dirs,), (dirs, columns)):
            raise node.fail(f"the {name} of {what} has shape {list(param.shape)}; it must be "
                            f"[{dirs}] or [{dirs}, {columns}]")
    scale = scale.reshape(dirs, 1, -1)
    zero = zero.reshape(dirs, 1, -1)
    dequantized = ((values - zero) * scale).transpose(0, 2, 1)
    name = node.graph.unique_name(f"{node.inputs[index]}_dequantized")
    node.values[name] = np.ascontiguousarray(dequantized, dtype=np.float32)
    return name


@converter("DynamicQuantizeLSTM")
def dynamic_quantize_lstm(node: Node) -> None:
    w = _dequantized(node, 1, 8, 9, "W")
    r = _dequantized(node, 2, 10, 11, "R")
    inputs = [node.inputs[0], w, r] + [node.inputs[i] if node.has_input(i) else ""
                                       for i in range(3, 8)]
    while inputs and not inputs[-1]:
        inputs.pop()
    lstm = Node(node.graph, "LSTM", node.name, node.index, inputs, node.outputs, node.attrs,
                node.values, node.ir_consts, node.opset, node.framework)
    recurrent(lstm)
