"""The shape of a tensor whose shape depends on run-time values (a Range
of computed bounds), taken from a declared shape further down the graph.

A tensor T of unknown shape S passes S on through elementwise ops whose
other operands are all-ones shapes of no greater rank (scalars, mostly):
each such op's output has shape S as well. When one of those outputs has a
declared shape D (a graph output or value_info), S is D. The engine still
checks on every run that the values give that shape.
"""
from __future__ import annotations

from typing import Optional

from mace_converter.frontends.node import Node

# Elementwise ops: the output has the broadcast shape of the inputs.
ELEMENTWISE_OPS = frozenset({
    "Abs", "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "Cast", "CastLike",
    "Ceil", "Cos", "Cosh", "Div", "Erf", "Exp", "Floor", "Identity", "Log", "Max", "Mean",
    "Min", "Mul", "Neg", "Pow", "Reciprocal", "Relu", "Round", "Sigmoid", "Sign", "Sin",
    "Sinh", "Sqrt", "Sub", "Sum", "Tan", "Tanh"})


def shape_from_consumers(node: Node, name: str) -> Optional[tuple[int, ...]]:
    """The declared shape that `name`'s shape must have by the rule above,
    or None when no declared shape is reached that way."""
    flow = getattr(node.graph, "onnx_nodes", None)
    declared = node.graph.declared_shapes
    if not flow:
        return None
    same = {name}          # tensors known to have the shape of `name`
    ranks = [0]            # ranks of the all-ones operands met on the way
    changed = True
    while changed:
        changed = False
        for op_type, inputs, outputs in flow:
            if op_type not in ELEMENTWISE_OPS or not outputs or outputs[0] in same:
                continue
            present = [i for i in inputs if i]
            if not present or not any(i in same for i in present):
                continue
            if op_type == "CastLike":
                present = present[:1]
            others = [_ones_rank(node, i) for i in present if i not in same]
            if any(rank is None for rank in others):
                continue
            same.add(outputs[0])
            ranks.extend(others)
            changed = True
            shape = declared.get(outputs[0])
            if shape is not None and max(ranks) <= len(shape):
                return shape
    return None


def _ones_rank(node: Node, name: str) -> Optional[int]:
    """The rank of `name` when its shape is known now and all ones."""
    if name in node.values:
        shape = tuple(node.values[name].shape)
    elif name in node.graph.tensors and node.graph.tensors[name].shape is not None:
        shape = node.graph.tensors[name].shape
    else:
        return None
    return len(shape) if all(d == 1 for d in shape) else None
