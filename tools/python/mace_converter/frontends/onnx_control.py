"""ONNX control flow at conversion: an If whose condition is a constant
(an initializer, or folded from Shape / Constant arithmetic) is replaced by
the nodes of the branch it takes. An If with a computed condition is
refused with the node's name."""
from __future__ import annotations

from typing import Any

import numpy as np

from mace_converter.frontends.node import Node


def inline_if(importer: Any, node: Node, proto: Any) -> None:
    """Converts the taken branch of `node` in place of the If."""
    if not node.has_input(0):
        raise node.fail("If has no condition input")
    if not node.is_const(0):
        raise node.fail(f"If with a computed condition is not supported yet: its condition "
                        f"'{node.inputs[0]}' is not a constant at conversion (only Ifs "
                        "whose condition folds to a constant are inlined)")
    condition = np.asarray(node.const(0, "cond"))
    if condition.size != 1:
        raise node.fail(f"If's condition has {condition.size} elements; it needs one")
    taken = "then_branch" if bool(condition.reshape(-1)[0]) else "else_branch"
    branch = node.attr(taken)
    if branch is None:
        raise node.fail(f"If has no {taken}")
    importer.convert_subgraph(branch, node.index)
    outputs = [info.name for info in branch.output]
    if len(outputs) != len(node.outputs):
        raise node.fail(f"If's {taken} has {len(outputs)} outputs but the node has "
                        f"{len(node.outputs)}")
    for source, target in zip(outputs, node.outputs):
        if not target:
            continue
        if source in node.values:
            node.values[target] = node.values[source]
        elif node.graph.is_const(source):
            node.values[target] = node.graph.const(source)
        else:
            if source not in node.graph.tensors:
                raise node.fail(f"If's {taken} output '{source}' is not produced in the branch")
            node.emit("Identity", [source], outputs=[target])
