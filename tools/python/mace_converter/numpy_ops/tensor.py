"""Element-wise arithmetic and shape-moving kernels."""
from __future__ import annotations

import numpy as np

from mace_converter.numpy_ops import kernel
from mace_converter.numpy_ops.nn import activation
from mace_converter.shape_rules import PAD_AMOUNTS, TRANSPOSE_PERM

SUM, SUB, PROD, DIV, MIN, MAX, NEG, ABS, SQR_DIFF, POW = range(10)


def _binary(kind: int, a: np.ndarray, b: np.ndarray, coeff) -> np.ndarray:
    if kind == SUM:
        return a * coeff[0] + b * coeff[1] if coeff else a + b
    if kind == SUB:
        return a - b
    if kind == PROD:
        return a * b
    if kind == DIV:
        return a / b
    if kind == MIN:
        return np.minimum(a, b)
    if kind == MAX:
        return np.maximum(a, b)
    if kind == SQR_DIFF:
        return (a - b) ** 2
    if kind == POW:
        return np.power(a, b)
    raise ValueError(f"unknown Eltwise type {kind}")


@kernel("Eltwise")
def _eltwise(inputs, args, _):
    kind = int(args["type"])
    a = inputs[0].astype(np.float64)
    if kind == NEG:
        out = -a
    elif kind == ABS:
        out = np.abs(a)
    elif len(inputs) == 1:
        scalar = np.float64(np.float32(args["scalar_input"]))
        if int(args.get("scalar_input_index", 1)) == 1:
            out = _binary(kind, a, scalar, args.get("coeff"))
        else:
            out = _binary(kind, scalar, a, args.get("coeff"))
    else:
        out = _binary(kind, a, inputs[1].astype(np.float64), args.get("coeff"))
    return [activation(out, args)]


@kernel("Identity")
def _identity(inputs, args, _):
    return [inputs[0]]


@kernel("Concat")
def _concat(inputs, args, _):
    return [np.concatenate(inputs, axis=int(args.get("axis", 1)))]


@kernel("Split")
def _split(inputs, args, count):
    x = inputs[0]
    axis = int(args.get("axis", 1))
    sizes = args.get("split")
    if len(inputs) > 1 and inputs[1] is not None:
        wanted = [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
        if wanted != [int(v) for v in sizes]:
            raise ValueError(f"Split: the sizes input {wanted} is not the planned {sizes}")
    if sizes:
        return np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    return np.split(x, count, axis=axis)


@kernel("Slice")
def _slice(inputs, args, _):
    x = inputs[0]
    if len(inputs) > 1:
        starts, ends = list(inputs[1]), list(inputs[2])
        axes = list(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else None
        steps = list(inputs[4]) if len(inputs) > 4 and inputs[4] is not None else None
    else:
        starts, ends = args["starts"], args["ends"]
        axes, steps = args.get("axes"), args.get("steps")
    axes = axes if axes is not None else list(range(len(starts)))
    steps = steps if steps is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for start, end, axis, step in zip(starts, ends, axes, steps):
        index[int(axis)] = slice(int(start), int(end), int(step))
    return [x[tuple(index)]]


@kernel("Reshape")
def _reshape(inputs, args, _):
    shape = [int(d) for d in args["shape"]]
    if len(inputs) > 1 and inputs[1] is not None:
        # A shape computed at run time must give the planned one, as the
        # engine checks: 0 copies the input dimension (or, with
        # allow_zero, is 0), -1 is inferred.
        x = inputs[0]
        wanted = [int(d) for d in np.asarray(inputs[1]).reshape(-1)]
        copy = not int(args.get("allow_zero", 0))
        resolved = [x.shape[i] if d == 0 and copy and i < x.ndim else d
                    for i, d in enumerate(wanted)]
        if resolved.count(-1) == 1:
            known = int(np.prod([d for d in resolved if d != -1]))
            resolved[resolved.index(-1)] = x.size // known if known else -1
        if resolved != shape:
            raise ValueError(f"Reshape: the shape input {wanted} gives {resolved}, not the "
                             f"planned {shape}")
    return [inputs[0].reshape(shape)]


@kernel("Squeeze")
def _squeeze(inputs, args, _):
    axes = args.get("axis")
    x = inputs[0]
    if len(inputs) > 1 and inputs[1] is not None:  # axes computed at run time
        axes = [int(a) for a in np.asarray(inputs[1]).reshape(-1)]
    if int(args.get("unsqueeze", 0)):
        rank = x.ndim + len(axes)
        return [np.expand_dims(x, axis=tuple(sorted(a % rank for a in axes)))]
    if not axes:
        return [x.reshape([d for d in x.shape if d != 1])]
    return [np.squeeze(x, axis=tuple(int(a) for a in axes))]


@kernel("Transpose")
def _transpose(inputs, args, _):
    return [np.transpose(inputs[0], [int(p) for p in args[TRANSPOSE_PERM]])]


@kernel("Pad")
def _pad(inputs, args, _):
    x = inputs[0]
    value = float(args.get("constant_value", 0.0))
    if len(inputs) > 1:  # pads in ONNX's order, constant value and axes as inputs
        pads = [int(p) for p in np.asarray(inputs[1]).reshape(-1)]
        if len(inputs) > 2 and inputs[2] is not None:
            value = float(np.asarray(inputs[2]).reshape(-1)[0])
        axes = [int(a) % x.ndim for a in np.asarray(inputs[3]).reshape(-1)] \
            if len(inputs) > 3 and inputs[3] is not None else list(range(x.ndim))
        widths = [(0, 0)] * x.ndim
        for i, axis in enumerate(axes):
            widths[axis] = (pads[i], pads[i + len(axes)])
    else:
        amounts = [int(p) for p in args[PAD_AMOUNTS]]
        widths = [(amounts[2 * i], amounts[2 * i + 1]) for i in range(x.ndim)]
    mode = int(args.get("pad_type", 0))
    if mode == 1:
        return [np.pad(x, widths, mode="reflect")]
    if mode == 2:
        return [np.pad(x, widths, mode="symmetric")]
    if mode == 3:
        return [np.pad(x, widths, mode="edge")]
    if mode == 4:
        return [np.pad(x, widths, mode="wrap")]
    return [np.pad(x, widths, constant_values=value)]


# MIN and MAX of no elements are +inf and -inf, as in the engine and ONNX.
_REDUCERS = {0: np.mean, 1: lambda x, **kw: np.min(x, initial=np.inf, **kw),
             2: lambda x, **kw: np.max(x, initial=-np.inf, **kw), 3: np.prod, 4: np.sum}


@kernel("Reduce")
def _reduce(inputs, args, _):
    x = inputs[0].astype(np.float64)
    axes = args.get("axis")
    if len(inputs) > 1 and inputs[1] is not None:  # axes computed at run time
        axes = [int(a) for a in np.asarray(inputs[1]).reshape(-1)]
    if not axes and int(args.get("noop_with_empty_axes", 0)):
        return [inputs[0].copy()]
    axes = axes or list(range(x.ndim))
    keep = bool(int(args.get("keepdims", 1)))
    out = _REDUCERS[int(args.get("reduce_type", 0))](
        x, axis=tuple(int(a) for a in axes), keepdims=keep)
    return [np.asarray(out)]


@kernel("ArgMax")
def _argmax(inputs, args, _):
    x = inputs[0]
    axis = int(args.get("axis", 0)) % x.ndim
    if int(args.get("select_last_index", 0)):
        flipped = np.flip(x, axis=axis)
        out = x.shape[axis] - 1 - np.argmax(flipped, axis=axis)
    else:
        out = np.argmax(x, axis=axis)
    if int(args.get("keepdims", 1)):
        out = np.expand_dims(out, axis)
    return [np.asarray(out, dtype=np.int32)]
