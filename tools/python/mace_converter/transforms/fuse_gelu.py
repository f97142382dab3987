"""Folds the exporters' GELU chains into one Unary op (mace/ops/ref/unary.cc):

- GELU: 0.5 * x * (1 + Erf(x / sqrt(2))), the division also written as
  a product with 1 / sqrt(2);
- GELU_TANH: 0.5 * x * (1 + Tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))),
  the cube as Pow(x, 3) or x * x * x.

The 0.5 may scale x first, the product, or (1 + ...) first. Constants
must match to a relative 1e-5 and every intermediate must be read only
inside the chain.
"""
from __future__ import annotations

import math
from typing import Optional

from mace_converter.ir import Graph, Op
from mace_converter.numpy_ops.tensor import DIV, POW, PROD, SUM
from mace_converter.transforms.pattern import (Matcher, is_scalar, log_counts, other_input,
                                               plain_eltwise, replace_ops)

SQRT2 = math.sqrt(2.0)
TANH_SCALE = math.sqrt(2.0 / math.pi)
CUBIC = 0.044715


def _scaled(m: Matcher, name: str, kind: int, value: float) -> Optional[tuple[Op, str]]:
    op = m.producers.get(name)
    source = is_scalar(m.graph, op, kind, value)
    return None if source is None else (op, source)


def _erf_inner(m: Matcher, name: str) -> Optional[tuple[list[Op], str]]:
    found = _scaled(m, name, DIV, SQRT2) or _scaled(m, name, PROD, 1.0 / SQRT2)
    return None if found is None else ([found[0]], found[1])


def _cube_of(m: Matcher, name: str) -> Optional[tuple[list[Op], str]]:
    op = m.producers.get(name)
    source = is_scalar(m.graph, op, POW, 3.0)
    if source is not None:
        return [op], source
    if not plain_eltwise(op, PROD) or len(op.inputs) != 2:
        return None
    for first, second in (op.inputs, op.inputs[::-1]):
        square = m.producers.get(second)
        if plain_eltwise(square, PROD) and square.inputs == [first, first] \
                and m.sole(second, "Eltwise") is op:
            return [square, op], first
    return None


def _tanh_inner(m: Matcher, name: str) -> Optional[tuple[list[Op], str]]:
    found = _scaled(m, name, PROD, TANH_SCALE)
    if found is None:
        return None
    scale, total = found
    add = m.producers.get(total)
    if not plain_eltwise(add, SUM) or len(add.inputs) != 2 or m.sole(total, "Eltwise") is not scale:
        return None
    for x, term in (add.inputs, add.inputs[::-1]):
        found = _scaled(m, term, PROD, CUBIC)
        if found is None or m.sole(term, "Eltwise") is not add:
            continue
        cubic, cube = found
        chain = _cube_of(m, cube)
        if chain is not None and chain[1] == x and m.sole(cube, "Eltwise") is cubic:
            return chain[0] + [cubic, add, scale], x
    return None


def _outer(m: Matcher, one_plus: Op, x: str) -> Optional[list[Op]]:
    """The ops that make 0.5 * x * one_plus's output, in one of three orders."""
    graph, name = m.graph, one_plus.outputs[0]
    times = m.sole(name, "Eltwise")
    if not plain_eltwise(times, PROD):
        return None
    if is_scalar(graph, times, PROD, 0.5, name):
        after = m.sole(times.outputs[0], "Eltwise")
        if plain_eltwise(after, PROD) and other_input(after, times.outputs[0]) == x:
            return [times, after]
        return None
    other = other_input(times, name)
    if other == x:
        half = m.sole(times.outputs[0], "Eltwise")
        return [times, half] if is_scalar(graph, half, PROD, 0.5, times.outputs[0]) else None
    halved = m.producers.get(other) if other else None
    if is_scalar(graph, halved, PROD, 0.5, x) and m.sole(other, "Eltwise") is times:
        return [halved, times]
    return None


def _match(m: Matcher, op: Op) -> Optional[tuple[str, list[Op], str]]:
    """(GELU type, ops, x) for a chain around the Erf or Tanh `op`."""
    if op.type == "Unary" and op.args.get("type") == "ERF":
        kind, inner = "GELU", _erf_inner(m, op.inputs[0])
    elif op.type == "Activation" and op.args.get("activation") == "TANH" \
            and len(op.inputs) == 1:
        kind, inner = "GELU_TANH", _tanh_inner(m, op.inputs[0])
    else:
        return None
    if inner is None or m.sole(op.inputs[0], op.type) is not op:
        return None
    chain, x = inner
    one_plus = m.sole(op.outputs[0], "Eltwise")
    if not is_scalar(m.graph, one_plus, SUM, 1.0, op.outputs[0]):
        return None
    outer = _outer(m, one_plus, x)
    if outer is None:
        return None
    ops = chain + [op, one_plus] + outer
    inside = {id(o) for o in ops}
    for o in ops[:-1]:
        if any(id(r) not in inside for r in m.readers(o.outputs[0])) \
                or o.outputs[0] in m.graph.outputs:
            return None
    return kind, ops, x


def fuse_gelu(graph: Graph) -> int:
    counts: dict[str, int] = {}
    for op in [o for o in graph.ops if o.args.get("type") == "ERF"
               or o.args.get("activation") == "TANH"]:
        if op not in graph.ops:
            continue
        found = _match(Matcher(graph), op)
        if found is None:
            continue
        kind, ops, x = found
        new = Op("Unary", graph.unique_op_name(op.name + "/gelu"), [x], [ops[-1].outputs[0]],
                 {"type": kind}, op.origin)
        replace_ops(graph, ops, new)
        label = f"GELU(s) ({'Erf' if kind == 'GELU' else 'tanh'} form)"
        counts[label] = counts.get(label, 0) + 1
    log_counts(graph, "fused", counts)
    return sum(counts.values())
