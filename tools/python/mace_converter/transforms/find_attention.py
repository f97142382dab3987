"""Finds scaled dot-product attention: MatMul(Q, K^T), an optional scale,
an optional mask (Add of a computed tensor, or Where on a boolean), Softmax
over the last axis and MatMul with V, with any Reshape or Transpose between
(the Einsum form). The engine has no attention op, so the matches are only
counted in the conversion log and the subgraph runs as it is."""
from __future__ import annotations

from typing import Optional

from mace_converter.ir import Graph, Op
from mace_converter.numpy_ops.tensor import DIV, PROD, SUM
from mace_converter.transforms.pattern import (Matcher, is_scalar, known_shape, log_counts,
                                               plain_eltwise)

# Data movement, and the quantize-dequantize pairs of a QDQ model, which
# the engine runs as they are.
MOVES = ("Reshape", "Transpose", "Identity", "ExpandDims", "Squeeze", "QuantizeLinear",
         "DequantizeLinear")


def _through_moves_back(m: Matcher, name: str) -> tuple[Optional[Op], bool]:
    """The producer of `name` past data movement, and whether any was crossed."""
    op, moved = m.producers.get(name), False
    while op is not None and op.type in MOVES:
        op, moved = m.producers.get(op.inputs[0]), True
    return op, moved


def _past_nan_guard(m: Matcher, name: str) -> str:
    """The output of Where(IsNaN(p), 0, p) around `name`, the guard the
    PyTorch exporter writes after a Softmax of a fully masked row."""
    readers = m.readers(name)
    wheres = [op for op in readers if op.type == "Where" and op.inputs[2] == name]
    checks = [op for op in readers if op.type == "Compare" and op.inputs == [name, name]]
    if len(readers) == 2 and len(wheres) == 1 and len(checks) == 1:
        return wheres[0].outputs[0]
    return name


def _through_moves_on(m: Matcher, name: str) -> tuple[Optional[Op], bool]:
    readers, moved = m.readers(_past_nan_guard(m, name)), False
    while len(readers) == 1 and readers[0].type in MOVES:
        readers, moved = m.readers(readers[0].outputs[0]), True
    return (readers[0] if len(readers) == 1 else None), moved


def _classify(m: Matcher, softmax: Op) -> Optional[str]:
    """The attention kind of the Softmax `softmax`, or None if it is none."""
    shape = known_shape(m.graph, softmax.inputs[0])
    if shape is None:
        return None
    rank = len(shape)
    if int(softmax.args.get("axis", -1)) % rank != rank - 1 or softmax.args.get("use_log"):
        return None
    after, moved_after = _through_moves_on(m, softmax.outputs[0])
    if after is None or after.type != "MatMul":
        return None
    mask = "no mask"
    op, moved = _through_moves_back(m, softmax.inputs[0])
    if op is not None and op.type == "Where" and len(op.inputs) == 3:
        mask, op = "boolean mask", m.producers.get(op.inputs[1]) or m.producers.get(op.inputs[2])
    elif plain_eltwise(op, SUM) and len(op.inputs) == 2:
        mask = "additive mask"
        first, second = (m.producers.get(n) for n in op.inputs)
        op = first if first is not None and first.type in ("MatMul", "Eltwise") + MOVES \
            else second
    if is_scalar(m.graph, op, DIV, None) or is_scalar(m.graph, op, PROD, None):
        op = m.producers.get(op.inputs[0])
    while op is not None and op.type in MOVES:
        op, moved = m.producers.get(op.inputs[0]), True
    if op is None or op.type != "MatMul":
        return None
    einsum = any(" Einsum node " in o.origin for o in (op, after))
    return f"attention(s) ({mask}{', Einsum' if einsum else ''})"


def find_attention(graph: Graph) -> int:
    m = Matcher(graph)
    counts: dict[str, int] = {}
    for op in graph.ops:
        if op.type == "Softmax":
            kind = _classify(m, op)
            if kind is not None:
                counts[kind] = counts.get(kind, 0) + 1
    log_counts(graph, "found", {f"{k}, left unfused": v for k, v in counts.items()})
    return sum(counts.values())
