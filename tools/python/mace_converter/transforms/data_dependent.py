"""Reshapes after an op whose output shape depends on the data.

NonMaxSuppression's row count is known only at run time; the converter's
shapes after it are the largest ones. A Reshape there with a fixed target
would refuse every other row count, so when its input and target share
their first dimension (the rows, as in [K, 1] -> [K] or [K] -> [K, 1]),
that entry becomes -1 and the engine infers it at every run. Other targets
stay fixed, and the engine refuses, with the shapes, a run they do not fit.
"""
from __future__ import annotations

from mace_converter.ir import Graph
from mace_converter.shape_rules_detection import shape_depends_on_data


def follow_data_dependent_rows(graph: Graph) -> int:
    """Returns the number of Reshape targets changed."""
    changed = 0
    for op in graph.ops:
        if op.type != "Reshape" or not op.inputs or "shape" not in op.args:
            continue
        target = [int(d) for d in op.args["shape"]]
        source = graph.tensor(op.inputs[0]).shape
        if not target or -1 in target or not source or source[0] != target[0]:
            continue
        if not shape_depends_on_data(graph, op.inputs[0]):
            continue
        op.args["shape"] = [-1] + target[1:]
        changed += 1
    return changed
