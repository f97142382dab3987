"""Shape rules of MACE's detection ops, NonMaxSuppression and RoiAlign
(registered into shape_inference on import).

NonMaxSuppression's output has a row count known only at run time; its
rule gives the largest, which the engine plans memory for, as the engine's
own shape inference does (mace/ops/non_max_suppression.h)."""
from __future__ import annotations

from mace_converter.ir import Graph
from mace_converter.shape_inference import fail, rule

# Engine op types whose output shape depends on input values.
DATA_DEPENDENT_OPS = frozenset({"NonMaxSuppression"})


def shape_depends_on_data(graph: Graph, name: str) -> bool:
    """Whether tensor `name` is computed from the output of an op whose
    output shape depends on input values, so that its static shape is only
    an upper bound."""
    if not any(op.type in DATA_DEPENDENT_OPS for op in graph.ops):
        return False
    producers = {out: op for op in graph.ops for out in op.outputs}
    pending, seen = [name], set()
    while pending:
        current = pending.pop()
        op = producers.get(current)
        if op is None or current in seen:
            continue
        seen.add(current)
        if op.type in DATA_DEPENDENT_OPS:
            return True
        pending.extend(n for n in op.inputs if n)
    return False


@rule("NonMaxSuppression")
def _non_max_suppression(op, shapes, graph):
    boxes, scores = shapes[0], shapes[1]
    if len(boxes) != 3 or boxes[2] != 4 or len(scores) != 3 or \
            scores[0] != boxes[0] or scores[2] != boxes[1]:
        raise fail(op, f"boxes {list(boxes)} and scores {list(scores)} must be [N, B, 4] "
                       "and [N, C, B]")
    rows = boxes[1]
    if len(op.inputs) < 3 or not op.inputs[2]:
        rows = 0
    elif graph.is_const(op.inputs[2]):
        value = float(graph.const(op.inputs[2]).reshape(-1)[0])
        rows = 0 if value <= 0 else min(rows, int(min(value, 4e18)))
    return [(boxes[0] * scores[1] * rows, 3)]


@rule("RoiAlign")
def _roi_align(op, shapes, graph):
    x, rois, indices = shapes[0], shapes[1], shapes[2]
    if len(x) != 4 or len(rois) != 2 or rois[1] != 4 or tuple(indices) != (rois[0],):
        raise fail(op, f"X {list(x)}, rois {list(rois)} and batch_indices {list(indices)} "
                       "must be [N, C, H, W], [R, 4] and [R]")
    return [(rois[0], x[1], int(op.args.get("output_height", 1)),
             int(op.args.get("output_width", 1)))]
