"""Comparison, logic, modulo, selection and normalization kernels."""
from __future__ import annotations

import numpy as np

from mace_converter.numpy_ops import kernel

_COMPARE = {
    "equal": np.equal, "less": np.less, "greater": np.greater,
    "less_equal": np.less_equal, "greater_equal": np.greater_equal,
    "and": lambda a, b: (a != 0) & (b != 0), "or": lambda a, b: (a != 0) | (b != 0),
    "xor": lambda a, b: (a != 0) ^ (b != 0),
}


@kernel("Compare")
def _compare(inputs, args, _):
    kind = args["type"]
    kind = kind.decode() if isinstance(kind, bytes) else kind
    a = inputs[0].astype(np.float64)
    if kind == "not":
        return [(a == 0).astype(np.float32)]
    return [_COMPARE[kind](a, inputs[1].astype(np.float64)).astype(np.float32)]


@kernel("Bitwise")
def _bitwise(inputs, args, _):
    kind = args["type"]
    kind = kind.decode() if isinstance(kind, bytes) else kind
    a = np.asarray(inputs[0]).astype(np.int32)
    if kind == "not":
        return [np.invert(a)]
    b = np.asarray(inputs[1]).astype(np.int32)
    return [{"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind](a, b)]


@kernel("Mod")
def _mod(inputs, args, _):
    a, b = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.fmod(a, b) if int(args.get("fmod", 0)) else np.mod(a, b)
    return [out]


@kernel("Where")
def _where(inputs, args, _):
    return [np.where(inputs[0] != 0, inputs[1], inputs[2])]


@kernel("LayerNorm")
def _layer_norm(inputs, args, count):
    x = inputs[0].astype(np.float64)
    axis = int(args.get("axis", -1)) % x.ndim
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    inv = 1.0 / np.sqrt(var + float(args.get("epsilon", 1e-5)))
    y = (x - mean) * inv
    if len(inputs) > 1 and inputs[1] is not None:
        y = y * inputs[1].astype(np.float64).reshape(x.shape[axis:])
    if len(inputs) > 2 and inputs[2] is not None:
        y = y + inputs[2].astype(np.float64).reshape(x.shape[axis:])
    return [y, mean, inv][:count]


def _indices(array: np.ndarray, bound) -> np.ndarray:
    index = array.astype(np.int64)
    return np.where(index < 0, index + bound, index)


@kernel("Gather")
def _gather(inputs, args, _):
    data = inputs[0]
    axis = int(args.get("axis", 0)) % data.ndim
    return [np.take(data, _indices(inputs[1], data.shape[axis]), axis=axis)]


@kernel("GatherDequantize")
def _gather_dequantize(inputs, args, _):
    table, scales = inputs[0], inputs[2].astype(np.float32)
    rows = _indices(inputs[1], table.shape[0])
    return [(np.take(scales, rows)[..., None] * np.take(table, rows, axis=0)
             .astype(np.float32)).astype(np.float32)]


@kernel("GatherElements")
def _gather_elements(inputs, args, _):
    data = inputs[0]
    axis = int(args.get("axis", 0)) % data.ndim
    return [np.take_along_axis(data, _indices(inputs[1], data.shape[axis]), axis=axis)]


@kernel("GatherND")
def _gather_nd(inputs, args, _):
    data, indices = inputs[0], inputs[1].astype(np.int64)
    batch = int(args.get("batch_dims", 0))
    depth = indices.shape[-1]
    lead = data.shape[:batch]
    flat_data = data.reshape((-1,) + data.shape[batch:])
    flat_idx = indices.reshape((int(np.prod(lead)), -1, depth))
    out = []
    for b in range(flat_data.shape[0]):
        for t in flat_idx[b]:
            t = [int(v) + (data.shape[batch + k] if v < 0 else 0) for k, v in enumerate(t)]
            out.append(flat_data[b][tuple(t)])
    return [np.array(out).reshape(indices.shape[:-1] + data.shape[batch + depth:])]


_COMBINE = {"none": lambda old, new: new, "add": np.add, "mul": np.multiply,
            "max": np.maximum, "min": np.minimum}


@kernel("ScatterElements")
def _scatter_elements(inputs, args, _):
    data, updates = inputs[0].astype(np.float64).copy(), inputs[2]
    axis = int(args.get("axis", 0)) % data.ndim
    indices = _indices(inputs[1], data.shape[axis])
    combine = _COMBINE[args.get("reduction", "none")]
    for position in np.ndindex(*indices.shape):
        target = list(position)
        target[axis] = indices[position]
        data[tuple(target)] = combine(data[tuple(target)], updates[position])
    return [data]


@kernel("ScatterND")
def _scatter_nd(inputs, args, _):
    data, indices, updates = inputs[0].astype(np.float64).copy(), inputs[1], inputs[2]
    combine = _COMBINE[args.get("reduction", "none")]
    for position in np.ndindex(*indices.shape[:-1]):
        target = tuple(int(v) + (data.shape[k] if v < 0 else 0)
                       for k, v in enumerate(indices[position]))
        data[target] = combine(data[target], updates[position])
    return [data]


@kernel("Trilu")
def _trilu(inputs, args, _):
    k = int(args.get("k", 0)) if len(inputs) < 2 or inputs[1] is None \
        else int(np.asarray(inputs[1]).reshape(-1)[0])
    x = inputs[0]
    return [np.triu(x, k) if int(args.get("upper", 1)) else np.tril(x, k)]


@kernel("CumSum")
def _cum_sum(inputs, args, _):
    x = inputs[0].astype(np.float64)
    axis = int(args.get("axis", 0)) if len(inputs) < 2 or inputs[1] is None \
        else int(np.asarray(inputs[1]).reshape(-1)[0])
    if int(args.get("reverse", 0)):
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis)
    if int(args.get("exclusive", 0)):
        out = out - x
    if int(args.get("reverse", 0)):
        out = np.flip(out, axis)
    return [out]


@kernel("Tile")
def _tile(inputs, args, _):
    repeats = [int(r) for r in args["repeats"]]
    if len(inputs) > 1 and inputs[1] is not None and int(args.get("expand", 0)):
        # An Expand's target shape: the input broadcast to it must be planned.
        target = [int(d) for d in np.asarray(inputs[1]).reshape(-1)]
        want = list(np.broadcast_shapes(inputs[0].shape, tuple(target)))
        planned = [d * r for d, r in zip(inputs[0].shape, repeats)]
        if want != planned:
            raise ValueError(f"Tile: the shape input {target} gives {want}, not the planned "
                             f"{planned}")
    elif len(inputs) > 1 and inputs[1] is not None:  # computed at run time, as planned
        wanted = [int(r) for r in np.asarray(inputs[1]).reshape(-1)]
        if wanted != repeats:
            raise ValueError(f"Tile: the repeats input {wanted} is not the planned {repeats}")
    return [np.tile(inputs[0], repeats)]


@kernel("TopK")
def _top_k(inputs, args, _):
    x = inputs[0]
    axis = int(args.get("axis", -1)) % x.ndim
    k = int(args["k"])
    if len(inputs) > 1 and inputs[1] is not None:  # computed at run time, as planned
        wanted = int(np.asarray(inputs[1]).reshape(-1)[0])
        if wanted != k:
            raise ValueError(f"TopK: the k input {wanted} is not the planned {k}")
    key = -x if int(args.get("largest", 1)) else x
    order = np.argsort(key, axis=axis, kind="stable")
    order = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, order, axis=axis), order.astype(np.float32)]
