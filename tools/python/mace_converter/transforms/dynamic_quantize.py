"""`dynamic_quantize: 1`: int8 linear layers with activations quantized at
run time. Every FullyConnected whose weight is a constant becomes a
DynamicQuantizedFullyConnected: the weight [O, K] is stored as int8, each
output feature symmetric with its own scale (largest magnitude / 127), and
the engine quantizes each input row to uint8 with its own scale and zero
point on every run (docs/how-to/quantize.md#dynamic-quantization). The
other ops stay float."""
from __future__ import annotations

import numpy as np

from mace_converter.ir import Graph, QuantParams


def quantize_weight_per_row(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 values and float32 scales of `weight` [O, K], one scale per row;
    a row of zeros gets scale 1."""
    weight = weight.astype(np.float32)
    largest = np.abs(weight).max(axis=1)
    scales = np.where(largest > 0, largest / np.float32(127), np.float32(1)).astype(np.float32)
    values = np.clip(np.rint(weight / scales[:, None]), -127, 127).astype(np.int8)
    return values, scales


def dynamic_quantize(graph: Graph) -> int:
    """Rewrites the FullyConnected ops with constant weights; returns how
    many."""
    count = 0
    for op in graph.ops:
        if op.type != "FullyConnected" or len(op.inputs) < 2 or not graph.is_const(op.inputs[1]):
            continue
        weight = graph.const(op.inputs[1])
        if weight.ndim != 2 or not np.isfinite(weight).all():
            continue
        values, scales = quantize_weight_per_row(weight)
        name = graph.add_quantized_const(
            op.inputs[1] + "_int8", values,
            QuantParams(channel_scales=[float(s) for s in scales]))
        scale = graph.add_const(op.inputs[1] + "_scale", scales)
        op.type = "DynamicQuantizedFullyConnected"
        op.inputs = [op.inputs[0], name, scale] + list(op.inputs[2:3])
        count += 1
    graph.log.append(f"dynamic_quantize: {count} FullyConnected op(s) with int8 weights, "
                     "activations quantized per row at run time")
    return count
