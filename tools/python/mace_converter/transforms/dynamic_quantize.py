"""`dynamic_quantize: 1`: int8 linear layers with activations quantized at
run time. Every FullyConnected whose weight is a constant becomes a
DynamicQuantizedFullyConnected: the weight [O, K] is stored as int8, each
output feature symmetric with its own scale (largest magnitude / 127), and
the engine quantizes each input row to uint8 with its own scale and zero
point on every run. A Gather along axis 0 of a constant float table [V, D]
of at least MIN_TABLE_VALUES values (an embedding) becomes a
GatherDequantize of the table stored the same way, one scale per row
(docs/how-to/quantize.md#dynamic-quantization-int8-linear-layers). The
other ops stay float."""
from __future__ import annotations

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.ir import Graph, QuantParams
from mace_converter.quantize.scheme import weight_int8_per_channel

# Smaller tables stay float: they weigh little and are often positions or
# other values read whole.
MIN_TABLE_VALUES = 65536


def quantize_weight_per_row(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 values and float32 scales of `weight` [O, K], one symmetric
    scale per row (the uint8 pass's per-channel int8 weights); a row of
    zeros gets scale 1. ConversionError for a row whose scale is not a
    positive float32."""
    values, params = weight_int8_per_channel(weight, "weight")
    return values, np.asarray(params.channel_scales, dtype=np.float32)


def _int8_rows(graph: Graph, name: str, min_values: int = 0) -> tuple[str, str] | None:
    """The int8 copy of constant float matrix `name` and its per-row scales
    (new constants), or None where it is not a finite float matrix of at
    least `min_values` values."""
    value = graph.const(name)
    if value.ndim != 2 or value.size < min_values or value.dtype.kind != "f" or \
            not np.isfinite(value).all():
        return None
    try:
        values, scales = quantize_weight_per_row(value)
    except ConversionError:
        return None  # a row too small for a float32 scale: the op stays float
    quantized = graph.add_quantized_const(name + "_int8", values,
                                          QuantParams(channel_scales=[float(s) for s in scales]))
    return quantized, graph.add_const(name + "_scale", scales)


def dynamic_quantize(graph: Graph) -> int:
    """Rewrites the FullyConnected ops with constant weights and the
    embedding Gathers; returns how many FullyConnected ops."""
    count = tables = 0
    for op in graph.ops:
        if op.type == "Gather" and int(op.args.get("axis", 0)) == 0 and \
                graph.is_const(op.inputs[0]):
            rows = _int8_rows(graph, op.inputs[0], MIN_TABLE_VALUES)
            if rows is not None:
                op.type = "GatherDequantize"
                op.inputs = [rows[0], op.inputs[1], rows[1]]
                tables += 1
        elif op.type == "FullyConnected" and len(op.inputs) >= 2 and \
                graph.is_const(op.inputs[1]):
            rows = _int8_rows(graph, op.inputs[1])
            if rows is not None:
                op.type = "DynamicQuantizedFullyConnected"
                op.inputs = [op.inputs[0], rows[0], rows[1]] + list(op.inputs[2:3])
                count += 1
    graph.log.append(f"dynamic_quantize: {count} FullyConnected op(s) with int8 weights, "
                     "activations quantized per row at run time")
    if tables:
        graph.log.append(f"dynamic_quantize: {tables} embedding table(s) gathered from int8 "
                         "rows")
    return count
