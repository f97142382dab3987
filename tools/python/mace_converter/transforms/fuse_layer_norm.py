"""Folds the exporters' decomposed layer normalization into one LayerNorm
op (mace/ops/layer_norm.cc: y = (x - mean) / sqrt(var + epsilon) over the
axes from `axis` on, then scale and bias).

Two forms are recognised, each with the epsilon inside the square root:

- PyTorch: d = x - ReduceMean(x); var = ReduceMean(d ** 2) (Pow or d * d);
  y = d / Sqrt(var + eps) (or d * Reciprocal(...)), then * gamma + beta;
- tf2onnx (Keras, through tf.nn.batch_normalization): s = gamma *
  Reciprocal(Sqrt(var + eps)) with var from the squared difference;
  y = x * s + (beta - mean * s).

Each intermediate must be read only inside the pattern.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter.ir import Graph, Op
from mace_converter.numpy_ops.tensor import DIV, POW, PROD, SUB, SUM
from mace_converter.transforms.pattern import (Matcher, is_scalar, known_shape, log_counts,
                                               other_input, plain_eltwise, replace_ops,
                                               scalar_operand)


def _mean_axis(graph: Graph, op: Op) -> Optional[int]:
    """The first axis of a keepdims mean over trailing axes."""
    if op.type != "Reduce" or int(op.args.get("reduce_type", -1)) != 0 \
            or int(op.args.get("keepdims", 0)) != 1:
        return None
    shape = known_shape(graph, op.inputs[0])
    if shape is None:
        return None
    rank = len(shape)
    axes = sorted(int(a) % rank for a in op.args.get("axis", []))
    if not axes or axes != list(range(axes[0], rank)):
        return None
    return axes[0]


def _per_feature(graph: Graph, name: str, trailing: tuple[int, ...]) -> Optional[np.ndarray]:
    """A constant that varies only over the normalized axes, flattened."""
    if not graph.is_const(name):
        return None
    value = graph.const(name).astype(np.float32)
    lead = value.ndim - len(trailing)
    if lead > 0 and any(d != 1 for d in value.shape[:lead]):
        return None
    value = value.reshape(value.shape[max(lead, 0):])
    try:
        return np.ascontiguousarray(np.broadcast_to(value, trailing)).reshape(-1)
    except ValueError:
        return None


class _Match:
    def __init__(self, source: str, axis: int, eps: float):
        self.source, self.axis, self.eps = source, axis, eps
        self.ops: list[Op] = []
        self.gamma: Optional[np.ndarray] = None
        self.beta: Optional[np.ndarray] = None
        self.output = ""


def _variance(m: Matcher, mean: Op, diff: str,
              square_count: int) -> Optional[tuple[list[Op], float, str]]:
    """From the centred tensor to sqrt(var + eps): the ops, eps and the root."""
    graph = m.graph
    readers = m.readers(diff)
    squares = [op for op in readers
               if is_scalar(graph, op, POW, 2.0, diff)
               or (plain_eltwise(op, PROD) and op.inputs == [diff, diff])]
    if len(squares) != 1 or len(readers) != square_count:
        return None
    square = squares[0]
    var = m.sole(square.outputs[0], "Reduce")
    if var is None or _mean_axis(graph, var) != _mean_axis(graph, mean) \
            or var.args.get("axis") != mean.args.get("axis"):
        return None
    add = m.sole(var.outputs[0], "Eltwise")
    if not plain_eltwise(add, SUM):
        return None
    found = scalar_operand(graph, add)
    if found is None or found[0] != var.outputs[0] or found[1] < 0:
        return None
    root = m.sole(add.outputs[0], "Eltwise")
    if is_scalar(graph, root, POW, 0.5, add.outputs[0]) is None:
        return None
    return [square, var, add, root], found[1], root.outputs[0]


def _affine_tail(m: Matcher, match: _Match, name: str) -> str:
    """Takes a following * gamma and + beta into the match."""
    trailing = m.graph.shape(match.source)[match.axis:]
    for kind in (PROD, SUM):
        op = m.sole(name, "Eltwise")
        if not plain_eltwise(op, kind):
            break
        other = other_input(op, name)
        value = None if other is None else _per_feature(m.graph, other, trailing)
        if value is None or known_shape(m.graph, op.outputs[0]) != m.graph.shape(match.source):
            break
        if kind == PROD:
            match.gamma = value
        else:
            match.beta = value
        match.ops.append(op)
        name = op.outputs[0]
    return name


def _torch_form(m: Matcher, mean: Op, axis: int) -> Optional[_Match]:
    source = mean.inputs[0]
    sub = m.sole(mean.outputs[0], "Eltwise")
    if not plain_eltwise(sub, SUB) or sub.inputs != [source, mean.outputs[0]]:
        return None
    diff = sub.outputs[0]
    found = _variance(m, mean, diff, 2)
    if found is None:
        return None
    chain, eps, root = found
    normalize = m.sole(root, "Eltwise")
    tail: list[Op] = []
    if plain_eltwise(normalize, DIV) and normalize.inputs == [diff, root]:
        tail = [normalize]
    elif plain_eltwise(normalize, DIV) and len(normalize.inputs) == 1 \
            and normalize.args.get("scalar_input_index") == 0 \
            and float(normalize.args.get("scalar_input", 0)) == 1.0:
        scale = m.sole(normalize.outputs[0], "Eltwise")
        if not plain_eltwise(scale, PROD) or other_input(scale, normalize.outputs[0]) != diff:
            return None
        tail = [normalize, scale]
    else:
        return None
    if tail[-1] not in m.readers(diff):
        return None
    match = _Match(source, axis, eps)
    match.ops = [mean, sub] + chain + tail
    match.output = _affine_tail(m, match, tail[-1].outputs[0])
    return match


def _tf_form(m: Matcher, mean: Op, axis: int) -> Optional[_Match]:
    graph = m.graph
    source, mean_out = mean.inputs[0], mean.outputs[0]
    readers = m.readers(mean_out)
    subs = [op for op in readers if plain_eltwise(op, SUB) and op.inputs == [source, mean_out]]
    if len(readers) != 2 or len(subs) != 1:
        return None
    sub = subs[0]
    found = _variance(m, mean, sub.outputs[0], 1)
    if found is None or found[0][0].inputs != [sub.outputs[0]] * 2:
        return None
    chain, eps, root = found
    inverse = m.sole(root, "Eltwise")
    if not (plain_eltwise(inverse, DIV) and len(inverse.inputs) == 1
            and inverse.args.get("scalar_input_index") == 0
            and float(inverse.args.get("scalar_input", 0)) == 1.0):
        return None
    trailing = graph.shape(source)[axis:]
    scale = m.sole(inverse.outputs[0], "Eltwise")
    gamma_name = None if not plain_eltwise(scale, PROD) else other_input(scale, inverse.outputs[0])
    gamma = None if gamma_name is None else _per_feature(graph, gamma_name, trailing)
    if gamma is None:
        return None
    users = m.readers(scale.outputs[0])
    times_x = [op for op in users if plain_eltwise(op, PROD)
               and other_input(op, scale.outputs[0]) == source]
    times_mean = [op for op in users if plain_eltwise(op, PROD)
                  and other_input(op, scale.outputs[0]) == mean_out]
    if len(users) != 2 or len(times_x) != 1 or len(times_mean) != 1:
        return None
    shift = m.sole(times_mean[0].outputs[0], "Eltwise")
    if not plain_eltwise(shift, SUB) or shift.inputs[1] != times_mean[0].outputs[0]:
        return None
    beta = _per_feature(graph, shift.inputs[0], trailing)
    total = m.sole(times_x[0].outputs[0], "Eltwise")
    if beta is None or not plain_eltwise(total, SUM) \
            or other_input(total, times_x[0].outputs[0]) != shift.outputs[0] \
            or m.sole(shift.outputs[0], "Eltwise") is not total:
        return None
    match = _Match(source, axis, eps)
    match.ops = [mean, sub] + chain + [inverse, scale, times_x[0], times_mean[0], shift, total]
    match.gamma, match.beta, match.output = gamma, beta, total.outputs[0]
    return match


def fuse_layer_norm(graph: Graph) -> int:
    counts: dict[str, int] = {}
    done: set[int] = set()
    for mean in [op for op in graph.ops if op.type == "Reduce"]:
        if id(mean) in done or mean not in graph.ops:
            continue
        axis = _mean_axis(graph, mean)
        if axis is None:
            continue
        m = Matcher(graph)
        match = None
        for form, finder in (("PyTorch", _torch_form), ("tf2onnx", _tf_form)):
            match = finder(m, mean, axis)
            if match is not None:
                break
        if match is None:
            continue
        inner = int(np.prod(graph.shape(match.source)[axis:]))
        gamma = match.gamma if match.gamma is not None else np.ones(inner, np.float32)
        inputs = [match.source, graph.add_const(mean.name + "/gamma", gamma)]
        if match.beta is not None:
            inputs.append(graph.add_const(mean.name + "/beta", match.beta))
        new = Op("LayerNorm", graph.unique_op_name(mean.name + "/layer_norm"), inputs,
                 [match.output], {"axis": axis, "epsilon": match.eps}, mean.origin)
        done.update(id(op) for op in match.ops)
        replace_ops(graph, match.ops, new)
        kind = f"LayerNorm(s) ({form} form)"
        counts[kind] = counts.get(kind, 0) + 1
    log_counts(graph, "fused", counts)
    return sum(counts.values())
