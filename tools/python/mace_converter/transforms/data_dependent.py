"""Reshapes after an op whose output shape depends on the data.

NonMaxSuppression's row count is known only at run time; the converter's
shapes after it are the largest ones. A Reshape there with a fixed target
would refuse every other row count. The rows are taken to be the input's
first dimension above 1 (the selection's rows stay one dimension through
Slice, Gather, Cast, Unsqueeze and Squeeze); when the target holds that
size exactly once and the other dimensions match in number of elements
(as in [K, 1] -> [K], [K] -> [K, 1], [K, 3] -> [1, K, 3]), that entry
becomes -1 and the engine infers it at every run. Other targets stay
fixed, and the engine refuses, with the shapes, a run they do not fit.
"""
from __future__ import annotations

import math

from mace_converter.ir import Graph
from mace_converter.shape_rules_detection import shape_depends_on_data


def _rows_entry(source: tuple, target: list[int]) -> int:
    """The target index that holds the rows, or -1."""
    rows = next((i for i, d in enumerate(source) if d > 1), -1)
    if rows < 0 or target.count(source[rows]) != 1 or -1 in target:
        return -1
    entry = target.index(source[rows])
    rest_source = math.prod(source[:rows] + source[rows + 1:])
    rest_target = math.prod(target[:entry] + target[entry + 1:])
    return entry if rest_source == rest_target else -1


def follow_data_dependent_rows(graph: Graph) -> int:
    """Returns the number of Reshape targets changed."""
    changed = 0
    for op in graph.ops:
        if op.type != "Reshape" or not op.inputs or "shape" not in op.args:
            continue
        target = [int(d) for d in op.args["shape"]]
        entry = _rows_entry(tuple(graph.tensor(op.inputs[0]).shape), target)
        if entry < 0 or not shape_depends_on_data(graph, op.inputs[0]):
            continue
        target[entry] = -1
        op.args["shape"] = target
        changed += 1
    return changed
