"""Which layout of the engine's Attention op (numpy_ops/attention.py) a
chain of Reshape and Transpose ops (and scalar products, on Q and K)
around an attention's MatMuls amounts to. Each chain is replayed on an
array of element indices: the chain from a tensor to a MatMul operand is a
layout when it moves the tensor's elements exactly where that layout's
view puts them."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from mace_converter.ir import Graph, Op
from mace_converter.numpy_ops.attention import MERGED, PER_HEAD, TRANSPOSED
from mace_converter.numpy_ops.tensor import DIV, PROD
from mace_converter.transforms.pattern import (Matcher, known_shape, plain_eltwise,
                                               scalar_operand)

# Ops that only move elements, which the Attention op's layouts can take in.
SHAPE_MOVES = ("Reshape", "Transpose", "Identity", "ExpandDims", "Squeeze")


def replay(graph: Graph, chain: Sequence[Op], indices: np.ndarray) -> Optional[np.ndarray]:
    """`indices` moved through `chain` as its ops move their input, or None
    where a shape is unknown."""
    for op in chain:
        shape = known_shape(graph, op.outputs[0])
        if shape is None:
            return None
        if op.type == "Transpose":
            dims = [int(d) for d in op.args.get("dims", [])]
            if sorted(dims) != list(range(indices.ndim)):
                return None
            indices = indices.transpose(dims)
        if int(np.prod(shape)) != indices.size:
            return None
        indices = indices.reshape(shape)
    return indices


def _view(layout: int, dims: tuple[int, int, int, int], transposed: bool) -> tuple:
    """(source shape, index of each element of the [B, H, S, D] view (or
    [B, H, D, S] when `transposed`)) of a source in `layout`."""
    batch, heads, rows, depth = dims
    count = batch * heads * rows * depth
    if layout == MERGED:
        view = np.arange(count).reshape(batch, rows, heads, depth).transpose(0, 2, 1, 3)
        shape = (batch, rows, heads * depth)
    elif layout == TRANSPOSED:
        view = np.arange(count).reshape(batch, heads, depth, rows).transpose(0, 1, 3, 2)
        shape = (batch, heads, depth, rows)
    else:
        view = np.arange(count).reshape(dims)
        shape = dims
    return shape, (view.transpose(0, 1, 3, 2) if transposed else view)


def _scalar_factor(m: Matcher, op: Op) -> Optional[float]:
    """The factor of `op` if it multiplies or divides its input by a scalar."""
    if not (plain_eltwise(op, PROD) or plain_eltwise(op, DIV)):
        return None
    found = scalar_operand(m.graph, op)
    if found is None or found[0] != op.inputs[0] or (found[2] and int(op.args["type"]) == DIV):
        return None
    return found[1] if int(op.args["type"]) == PROD else 1.0 / found[1]


def trace_input(m: Matcher, operand: str, dims: tuple[int, int, int, int], transposed: bool,
                layouts: Sequence[int], scalars: bool = True
                ) -> Optional[tuple[str, int, list[Op], float]]:
    """(source, layout, ops from it to `operand`, the scalar factor they
    apply) for the furthest source behind `operand` (a MatMul operand: the
    [B, H, S, D] view of the source, or its [B, H, D, S] transpose when
    `transposed`, in any batch shape) through ops of SHAPE_MOVES, and with
    `scalars` products with a scalar (a scale split between Q and K), whose
    outputs nothing else reads."""
    chain: list[Op] = []
    candidates = [(operand, [], 1.0)]
    name, factor = operand, 1.0
    while True:
        op = m.producers.get(name)
        if op is None or len(m.readers(name)) != 1:
            break
        scalar = _scalar_factor(m, op) if scalars else None
        if op.type not in SHAPE_MOVES and scalar is None:
            break
        factor *= 1.0 if scalar is None else scalar
        chain = [op] + chain
        name = op.inputs[0]
        candidates.append((name, list(chain), factor))
    for source, ops, scale in reversed(candidates):
        shape = known_shape(m.graph, source)
        if shape is None:
            continue
        moves = [op for op in ops if op.type in SHAPE_MOVES]
        indices = replay(m.graph, moves, np.arange(int(np.prod(shape))).reshape(shape))
        if indices is None:
            continue
        for layout in layouts:
            want_shape, view = _view(layout, dims, transposed)
            if layout == MERGED and dims[0] == 1 and len(shape) == 2:
                want_shape = want_shape[1:]  # [S, H*D]: one batch
            if tuple(shape) == want_shape and indices.size == view.size \
                    and np.array_equal(indices.reshape(-1), view.reshape(-1)):
                return source, layout, ops, scale
    return None


def trace_output(m: Matcher, result: str, dims: tuple[int, int, int, int]
                 ) -> Optional[tuple[str, int, list[Op]]]:
    """(destination, layout, ops from `result` to it) for the furthest
    tensor after `result` (the [B, H, Sq, Dv] context in any batch shape)
    whose elements are in the order of an output layout, through ops of
    SHAPE_MOVES whose inputs nothing else reads."""
    candidates = [(result, [])]
    name, chain = result, []
    while True:
        readers = m.readers(name)
        if len(readers) != 1 or readers[0].type not in SHAPE_MOVES \
                or readers[0].inputs[0] != name:
            break
        chain = chain + [readers[0]]
        name = readers[0].outputs[0]
        candidates.append((name, list(chain)))
    count = int(np.prod(dims))
    shape = known_shape(m.graph, result)
    if shape is None or int(np.prod(shape)) != count:
        return None
    for dest, ops in reversed(candidates):
        indices = replay(m.graph, ops, np.arange(count).reshape(shape))
        if indices is None:
            continue
        for layout in (MERGED, PER_HEAD):
            order = _view(layout, dims, False)[1]
            if np.array_equal(indices.reshape(-1), np.argsort(order.reshape(-1))):
                return dest, layout, ops
    return None
