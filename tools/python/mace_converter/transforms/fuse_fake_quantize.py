"""A QuantizeLinear whose integers only a DequantizeLinear of the same scale
and zero point reads (a QDQ model's fake quantization of an activation, in
a float conversion) becomes one QuantizeLinear with `dequantize` set: the
same values (mace/ops/qdq_linear.h) in one pass over the tensor instead of
two, and no tensor of integers in between."""
from __future__ import annotations

import numpy as np

from mace_converter.ir import Graph, Op
from mace_converter.transforms.fold_affine import sole_consumer

_GROUPING = ("axis", "block_size")


def _same_operand(graph: Graph, a: str, b: str) -> bool:
    if a == b:
        return True
    if not (a and b and graph.is_const(a) and graph.is_const(b)):
        return False
    x, y = graph.const(a), graph.const(b)
    return x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x, y)


def _zero_point(graph: Graph, op: Op) -> str:
    return op.inputs[2] if len(op.inputs) > 2 else ""


def _same_zero_point(graph: Graph, a: str, b: str) -> bool:
    """Equal zero points, an absent one being 0."""
    if _same_operand(graph, a, b):
        return True
    present = a or b
    return not (a and b) and graph.is_const(present) and not np.any(graph.const(present))


def _pairs(graph: Graph, quantize: Op, dequantize: Op) -> bool:
    if dequantize.type != "DequantizeLinear" or dequantize.inputs[0] != quantize.outputs[0]:
        return False
    if any(quantize.args.get(name, default) != dequantize.args.get(name, default)
           for name, default in zip(_GROUPING, (1, 0))):
        return False
    return _same_operand(graph, quantize.inputs[1], dequantize.inputs[1]) and \
        _same_zero_point(graph, _zero_point(graph, quantize), _zero_point(graph, dequantize))


def fuse_fake_quantize(graph: Graph) -> int:
    """Fuses every such pair; returns how many."""
    fused = 0
    consumers = graph.consumers()
    for op in list(graph.ops):
        if op.type != "QuantizeLinear" or int(op.args.get("dequantize", 0)):
            continue
        reader = sole_consumer(graph, op.outputs[0], consumers)
        if reader is None or not _pairs(graph, op, reader):
            continue
        output = reader.outputs[0]
        kept = graph.tensors.get(output)
        graph.remove_op(reader)
        if kept is not None:
            graph.tensors[output] = kept
        graph.tensors.pop(op.outputs[0], None)
        op.outputs = [output]
        op.args["dequantize"] = 1
        fused += 1
    if fused:
        graph.log.append(f"fused {fused} QuantizeLinear -> DequantizeLinear pair(s) into one "
                         "op each (fake quantization in float)")
    return fused
