"""Small queries for the subgraph matchers of the transformer fusions: the
producer and sole reader of a tensor, and the constant operand of an
Eltwise."""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter.ir import Graph, Op
from mace_converter.numpy_ops.tensor import PROD, SUM
from mace_converter.transforms.fold_affine import sole_consumer


class Matcher:
    """The producers and readers of one graph, taken once per pass."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.producers = graph.producers()
        self.consumers = graph.consumers()

    def producer(self, name: str, op_type: str) -> Optional[Op]:
        op = self.producers.get(name)
        return op if op is not None and op.type == op_type else None

    def sole(self, name: str, op_type: str) -> Optional[Op]:
        """The one reader of `name` if it is of `op_type` and `name` is no
        graph output."""
        op = sole_consumer(self.graph, name, self.consumers)
        return op if op is not None and op.type == op_type else None

    def readers(self, name: str) -> list[Op]:
        """The distinct ops reading `name`; none if it is a graph output."""
        if name in self.graph.outputs:
            return []
        found: dict[int, Op] = {}
        for op in self.consumers.get(name, []):
            found.setdefault(id(op), op)
        return list(found.values())


def known_shape(graph: Graph, name: str) -> Optional[tuple[int, ...]]:
    """The shape of `name`, or None where it is not known at conversion."""
    tensor = graph.tensors.get(name)
    return None if tensor is None else tensor.shape


def plain_eltwise(op: Optional[Op], kind: int) -> bool:
    return op is not None and op.type == "Eltwise" and int(op.args.get("type", -1)) == kind \
        and op.args.get("activation", "NOOP") == "NOOP" and "coeff" not in op.args


def scalar_operand(graph: Graph, op: Op) -> Optional[tuple[str, float, bool]]:
    """(variable input, constant, constant comes first) when the Eltwise `op`
    combines one tensor with one scalar constant."""
    if len(op.inputs) == 1 and "scalar_input" in op.args:
        first = int(op.args.get("scalar_input_index", 1)) == 0
        return op.inputs[0], float(np.float32(op.args["scalar_input"])), first
    if len(op.inputs) != 2:
        return None
    for index in (0, 1):
        name = op.inputs[index]
        if graph.is_const(name) and graph.const(name).size == 1 \
                and not graph.is_const(op.inputs[1 - index]):
            return op.inputs[1 - index], float(graph.const(name).reshape(-1)[0]), index == 0
    return None


def is_scalar(graph: Graph, op: Optional[Op], kind: int, value: Optional[float],
              source: Optional[str] = None, rel: float = 1e-5) -> Optional[str]:
    """The variable input of `op` if it is Eltwise `kind` of that input and a
    scalar close to `value`, or any scalar if `value` is None (second,
    unless `kind` commutes)."""
    if not plain_eltwise(op, kind):
        return None
    found = scalar_operand(graph, op)
    if found is None or (found[2] and kind not in (SUM, PROD)):
        return None
    if value is not None and abs(found[1] - value) > rel * abs(value):
        return None
    if source is not None and found[0] != source:
        return None
    return found[0]


def other_input(op: Op, name: str) -> Optional[str]:
    """The input of the binary `op` that is not `name`, if `name` is read once."""
    if len(op.inputs) != 2 or op.inputs.count(name) != 1:
        return None
    return op.inputs[1] if op.inputs[0] == name else op.inputs[0]


def replace_ops(graph: Graph, matched: list[Op], new: Op) -> None:
    """Puts `new` where the last of `matched` ran and drops the rest."""
    position = max(graph.ops.index(op) for op in matched)
    graph.ops[position] = new
    keep = set(new.outputs)
    drop = {id(op) for op in matched}
    graph.ops = [op for op in graph.ops if id(op) not in drop]
    for op in matched:
        for out in op.outputs:
            if out not in keep and out not in graph.outputs:
                graph.tensors.pop(out, None)


def log_counts(graph: Graph, what: str, counts: dict[str, int]) -> None:
    for kind, count in sorted(counts.items()):
        graph.log.append(f"{what} {count} {kind}")
