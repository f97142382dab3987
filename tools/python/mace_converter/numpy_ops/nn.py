"""Convolution-family, normalization and activation kernels."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mace_converter import geometry
from mace_converter.numpy_ops import kernel


def activation(x: np.ndarray, args: dict, alpha: np.ndarray | None = None) -> np.ndarray:
    kind = args.get("activation", "NOOP")
    coefficient = float(args.get("activation_coefficient", 0.0))
    if kind == "NOOP":
        return x
    if kind == "RELU":
        return np.maximum(x, 0)
    if kind == "RELUX":
        return np.clip(x, 0, float(args.get("activation_max_limit", 6.0)))
    if kind == "RELU6":
        return np.clip(x, 0, 6)
    if kind == "LEAKYRELU":
        return np.where(x >= 0, x, x * coefficient)
    if kind == "PRELU":
        slope = alpha.reshape((1, -1) + (1,) * (x.ndim - 2))
        return np.where(x >= 0, x, x * slope)
    if kind == "SIGMOID":
        return 1.0 / (1.0 + np.exp(-x))
    if kind == "TANH":
        return np.tanh(x)
    if kind == "HARDSWISH":
        return x * np.clip(x + 3.0, 0, 6) / 6.0
    if kind == "HARDSIGMOID":
        alpha_value = float(args.get("activation_coefficient", 1.0 / 6.0))
        beta = float(args.get("activation_beta", 0.5))
        return np.clip(alpha_value * x + beta, 0, 1)
    raise ValueError(f"unknown activation {kind}")


def _windows(x: np.ndarray, kernel_hw, args: dict, pad_value: float,
             out_hw=None, pads=None) -> np.ndarray:
    """[n, c, oh, ow, kh, kw] input windows with the op's padding applied."""
    strides = args.get("strides", [1, 1])
    dilations = args.get("dilations", [1, 1])
    if out_hw is None:
        out_h, out_w, pads = geometry.window_shape(args, x.shape[2:], kernel_hw)
    else:
        out_h, out_w = out_hw
    top, left, bottom, right = pads
    eff_h = (kernel_hw[0] - 1) * dilations[0] + 1
    eff_w = (kernel_hw[1] - 1) * dilations[1] + 1
    # Extra trailing rows so every window fits (ceil mode overhang).
    need_h = (out_h - 1) * strides[0] + eff_h
    need_w = (out_w - 1) * strides[1] + eff_w
    extra_h = max(need_h - (x.shape[2] + top + bottom), 0)
    extra_w = max(need_w - (x.shape[3] + left + right), 0)
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom + extra_h), (left, right + extra_w)),
                constant_values=pad_value)
    view = sliding_window_view(xp, (eff_h, eff_w), axis=(2, 3))
    view = view[:, :, ::strides[0], ::strides[1], ::dilations[0], ::dilations[1]]
    return view[:, :, :out_h, :out_w]


def conv2d(x: np.ndarray, w: np.ndarray, args: dict, group: int) -> np.ndarray:
    """x NCHW, w OIHW with I = C / group."""
    win = _windows(x, w.shape[2:], args, 0.0)
    n, c, oh, ow, kh, kw = win.shape
    o = w.shape[0]
    cg, og = c // group, o // group
    patches = win.reshape(n, group, cg, oh, ow, kh, kw)
    patches = patches.transpose(1, 0, 3, 4, 2, 5, 6).reshape(group, n * oh * ow, cg * kh * kw)
    weights = w.reshape(group, og, cg * kh * kw).transpose(0, 2, 1)
    out = np.matmul(patches, weights)                      # [g, n*oh*ow, og]
    return out.reshape(group, n, oh, ow, og).transpose(1, 0, 4, 2, 3).reshape(n, o, oh, ow)


def _bias(out: np.ndarray, bias) -> np.ndarray:
    if bias is None:
        return out
    return out + bias.astype(np.float64).reshape((1, -1) + (1,) * (out.ndim - 2))


@kernel("Conv2D")
def _conv2d(inputs, args, _):
    x, w = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    out = conv2d(x, w, args, int(args.get("group", 1)))
    return [activation(_bias(out, inputs[2] if len(inputs) > 2 else None), args)]


@kernel("DepthwiseConv2d")
def _depthwise(inputs, args, _):
    x, w = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    win = _windows(x, w.shape[2:], args, 0.0)          # [n, c, oh, ow, kh, kw]
    # filter [m, c, kh, kw]; output channel c * m_count + m.
    out = np.einsum("ncyxij,mcij->ncmyx", win, w)
    n, c, m, oh, ow = out.shape
    out = out.reshape(n, c * m, oh, ow)
    return [activation(_bias(out, inputs[2] if len(inputs) > 2 else None), args)]


@kernel("Deconv2D")
def _deconv2d(inputs, args, _):
    x, w = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    group = int(args.get("group", 1))
    strides = args.get("strides", [1, 1])
    dilations = args.get("dilations", [1, 1])
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = c // group
    out_h, out_w, (crop_top, crop_left) = geometry.deconv_shape(args, (h, wd), (kh, kw))
    full_h = max((h - 1) * strides[0] + dilations[0] * (kh - 1) + 1, crop_top + out_h)
    full_w = max((wd - 1) * strides[1] + dilations[1] * (kw - 1) + 1, crop_left + out_w)
    full = np.zeros((n, group * og, full_h, full_w))
    xg = x.reshape(n, group, cg, h, wd)
    wg = w.reshape(group, cg, og, kh, kw)
    for i in range(kh):
        for j in range(kw):
            contrib = np.einsum("ngcyx,gco->ngoyx", xg, wg[:, :, :, i, j])
            y0, x0 = i * dilations[0], j * dilations[1]
            full[:, :, y0:y0 + (h - 1) * strides[0] + 1:strides[0],
                 x0:x0 + (wd - 1) * strides[1] + 1:strides[1]] += \
                contrib.reshape(n, group * og, h, wd)
    out = full[:, :, crop_top:crop_top + out_h, crop_left:crop_left + out_w]
    return [activation(_bias(out, inputs[2] if len(inputs) > 2 else None), args)]


@kernel("Deconv3D")
def _deconv3d(inputs, args, _):
    """Scatters each kernel tap's products into the full output, then crops."""
    x, w = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    group = int(args.get("group", 1))
    strides = args.get("strides", [1, 1, 1])
    dilations = args.get("dilations", [1, 1, 1])
    pads = args.get("pads", [0] * 6)
    output_padding = args.get("output_padding", [0, 0, 0])
    n, c = x.shape[:2]
    size = x.shape[2:]
    _, og, *kernel = w.shape
    full = [geometry.deconv_full(size[a], kernel[a], strides[a], dilations[a], output_padding[a])
            for a in range(3)]
    out = np.zeros((n, group * og, *full))
    xg = x.reshape(n, group, c // group, *size)
    wg = w.reshape(group, c // group, og, *kernel)
    for kd in range(kernel[0]):
        for kh in range(kernel[1]):
            for kw in range(kernel[2]):
                contrib = np.einsum("ngcdyx,gco->ngodyx", xg, wg[:, :, :, kd, kh, kw])
                starts = [k * dil for k, dil in zip((kd, kh, kw), dilations)]
                window = tuple(slice(s0, s0 + (size[a] - 1) * strides[a] + 1, strides[a])
                               for a, s0 in enumerate(starts))
                out[(slice(None), slice(None)) + window] += contrib.reshape(
                    n, group * og, *size)
    crop = tuple(slice(pads[a], full[a] - pads[a + 3]) for a in range(3))
    out = out[(slice(None), slice(None)) + crop]
    if len(inputs) > 2 and inputs[2] is not None:
        out = out + inputs[2].astype(np.float64).reshape(1, -1, 1, 1, 1)
    return [out]


@kernel("Pooling")
def _pooling(inputs, args, outputs):
    x = inputs[0].astype(np.float64)
    is_max = int(args.get("pooling_type", 1)) == 2
    if int(args.get("pooling_type", 1)) == 3:
        return [_lp_pooling(x, args)]
    if args.get("global"):
        reduce = np.max if is_max else np.mean
        return [reduce(x, axis=(2, 3), keepdims=True)]
    kernel_hw = args["kernels"]
    out_h, out_w, pads = geometry.window_shape(args, x.shape[2:], kernel_hw)
    inside = np.ones((1, 1) + x.shape[2:])
    shape_args = (kernel_hw, args, 0.0, (out_h, out_w), pads)
    valid = _windows(inside, *shape_args)
    if is_max:
        win = _windows(x, kernel_hw, args, -np.inf, (out_h, out_w), pads)
        out = win.max(axis=(4, 5))
        covered = valid.max(axis=(4, 5)) > 0
        result = [np.where(covered, out, 0.0)]
        if outputs == 2:
            result.append(_pool_indices(x, win, covered, args, shape_args))
        return result
    total = _windows(x, *shape_args).sum(axis=(4, 5))
    if int(args.get("count_include_pad", 0)):
        declared = np.pad(inside, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
                          constant_values=1.0)
        unpadded = dict(args, pads=[0, 0, 0, 0])
        # count_ceil_overhang: taps past the declared end padding count too.
        overhang = 1.0 if int(args.get("count_ceil_overhang", 0)) else 0.0
        count = _windows(declared, kernel_hw, unpadded, overhang, (out_h, out_w), (0, 0, 0, 0))
    else:
        count = valid
    count = count.sum(axis=(4, 5))
    return [np.where(count > 0, total / np.maximum(count, 1), 0.0)]


def _lp_pooling(x: np.ndarray, args: dict) -> np.ndarray:
    """LP Pooling: (sum of |x|^p over each window)^(1/p), padding adds 0."""
    p = int(args.get("p", 2))
    powered = np.abs(x) ** p
    if args.get("global"):
        return powered.sum(axis=(2, 3), keepdims=True) ** (1.0 / p)
    kernel_hw = args["kernels"]
    out_h, out_w, pads = geometry.window_shape(args, x.shape[2:], kernel_hw)
    total = _windows(powered, kernel_hw, args, 0.0, (out_h, out_w), pads).sum(axis=(4, 5))
    return total ** (1.0 / p)


@kernel("Conv3D")
def _conv3d(inputs, args, _):
    """Sums each kernel tap's strided slice of the zero-padded input."""
    x, w = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    group = int(args.get("group", 1))
    strides = args.get("strides", [1, 1, 1])
    dilations = args.get("dilations", [1, 1, 1])
    pads = args.get("pads", [0] * 6)
    n, c = x.shape[:2]
    o, cg, *kernel = w.shape
    padded = np.pad(x, [(0, 0), (0, 0)] + [(pads[a], pads[a + 3]) for a in range(3)])
    out_size = [(padded.shape[2 + a] - dilations[a] * (kernel[a] - 1) - 1) // strides[a] + 1
                for a in range(3)]
    xg = padded.reshape(n, group, cg, *padded.shape[2:])
    wg = w.reshape(group, o // group, cg, *kernel)
    out = np.zeros((n, group, o // group, *out_size))
    for kd in range(kernel[0]):
        for kh in range(kernel[1]):
            for kw in range(kernel[2]):
                window = tuple(slice(k * dil, k * dil + (size - 1) * s + 1, s)
                               for k, dil, size, s in zip((kd, kh, kw), dilations, out_size,
                                                          strides))
                taps = xg[(slice(None),) * 3 + window]
                out += np.einsum("ngcdyx,goc->ngodyx", taps, wg[:, :, :, kd, kh, kw])
    out = out.reshape(n, o, *out_size)
    return [activation(_bias(out, inputs[2] if len(inputs) > 2 else None), args)]


@kernel("MaxPool3D")
def _max_pool_3d(inputs, args, outputs):
    """Each output voxel's in-input taps, flattened row-major: np.argmax
    gives the first maximum; its (d, h, w) then counts row- or column-major
    (storage_order 1) within the plane."""
    x = inputs[0].astype(np.float32)
    n, c, *size = x.shape
    kernel = args["kernels"]
    strides = args.get("strides", [1, 1, 1])
    dilations = args.get("dilations", [1, 1, 1])
    pads = args.get("pads", [0] * 6)
    out_size = [geometry.window_output(size[a], kernel[a], strides[a], dilations[a],
                                       (pads[a], pads[a + 3]), bool(args.get("ceil_mode", 0)))
                for a in range(3)]
    d, h, w = size
    column_major = int(args.get("storage_order", 0))
    values = np.zeros((n, c, *out_size), np.float32)
    indices = np.full((n, c, *out_size), -1, np.int64)
    planes = np.arange(n * c).reshape(n, c) * (d * h * w)
    for voxel in np.ndindex(*out_size):
        taps = []
        for a in range(3):
            at = voxel[a] * strides[a] - pads[a] + np.arange(kernel[a]) * dilations[a]
            taps.append(at[(at >= 0) & (at < size[a])])
        if min(len(t) for t in taps) == 0:
            continue
        window = x[:, :, taps[0]][:, :, :, taps[1]][:, :, :, :, taps[2]].reshape(n, c, -1)
        first = np.argmax(window, axis=-1)
        values[(slice(None), slice(None)) + voxel] = np.take_along_axis(
            window, first[..., None], axis=-1)[..., 0]
        kd, kh, kw = np.unravel_index(first, [len(t) for t in taps])
        vd, vh, vw = taps[0][kd], taps[1][kh], taps[2][kw]
        offset = (vw * h + vh) * d + vd if column_major else (vd * h + vh) * w + vw
        indices[(slice(None), slice(None)) + voxel] = planes + offset
    result = [values]
    if outputs == 2:
        result.append(indices.astype(np.int32))
    return result


def _pool_indices(x, win, covered, args, shape_args) -> np.ndarray:
    """MAX Pooling's second output: where each window's first maximum lies
    in the whole input, row-major or (storage_order 1) with H and W swapped;
    -1 for windows of padding only."""
    n, c, h, w = x.shape
    rows, cols = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    offsets = cols * h + rows if int(args.get("storage_order", 0)) else rows * w + cols
    where = _windows(offsets[None, None].astype(np.float64), *shape_args[:1], args, -1.0,
                     *shape_args[3:])
    flat_win = win.reshape(win.shape[:4] + (-1,))
    first = np.argmax(flat_win, axis=-1)[..., None]
    flat_where = np.broadcast_to(where.reshape(where.shape[:4] + (-1,)), flat_win.shape)
    offset = np.take_along_axis(flat_where, first, axis=-1)[..., 0]
    planes = np.arange(n * c).reshape(n, c, 1, 1) * (h * w)
    return np.where(covered, planes + offset, -1).astype(np.int32)


@kernel("FullyConnected")
def _fully_connected(inputs, args, _):
    x, w = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    out = x.reshape(x.shape[0], -1) @ w.T
    out = activation(_bias(out, inputs[2] if len(inputs) > 2 else None), args)
    if x.ndim == 4:
        out = out.reshape(out.shape + (1, 1))
    return [out]


def quantize_rows_dynamic(x: np.ndarray, divide: bool = False
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The engine's run-time uint8 quantization of each row of `x` [N, K]
    (mace/ops/ref/dynamic_quantized_fully_connected.h): q, scales, zero
    points, in float32 arithmetic as the engine does it. `divide`: x / s
    as ONNX DynamicQuantizeLinear computes it, else x * (1 / s)."""
    x = x.astype(np.float32)
    low = np.minimum(x.min(axis=1), 0).astype(np.float32)
    high = np.maximum(x.max(axis=1), 0).astype(np.float32)
    span = (high - low).astype(np.float32)
    flat = span == 0
    scale = np.where(flat, np.float32(1), span / np.float32(255)).astype(np.float32)
    if divide:
        zero = np.clip(np.rint(-low / scale), 0, 255).astype(np.float32)
        steps = x / scale[:, None]
    else:
        inverse = (np.float32(1) / scale).astype(np.float32)
        zero = np.clip(np.rint(-low * inverse), 0, 255).astype(np.float32)
        steps = x * inverse[:, None]
    zero = np.where(flat, np.float32(0), zero)
    q = np.clip(np.rint(steps) + zero[:, None], 0, 255)
    q = np.where(flat[:, None], 0, q)
    return q.astype(np.int64), scale, zero.astype(np.int64)


@kernel("DynamicQuantizedFullyConnected")
def _dynamic_quantized_fully_connected(inputs, args, _):
    """Per-row or (`per_tensor`) whole-tensor uint8 input, int8 or uint8
    weight minus `weight_zero_points` (none, one or one per feature)."""
    x = inputs[0]
    zeros = np.asarray(args.get("weight_zero_points") or [0], np.int64)
    w = inputs[1].astype(np.int64) - zeros.reshape(-1, 1)
    rows = x.reshape(x.shape[0], -1)
    per_tensor = bool(args.get("per_tensor", 0))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if per_tensor:
            q, scale, zero = quantize_rows_dynamic(rows.reshape(1, -1), divide=True)
            q = q.reshape(rows.shape)
            scale, zero = np.repeat(scale, rows.shape[0]), np.repeat(zero, rows.shape[0])
        else:
            q, scale, zero = quantize_rows_dynamic(rows)
        sums = ((q - zero[:, None]) @ w.T).astype(np.float32)
        out = sums * (scale[:, None] * inputs[2].astype(np.float32)[None, :])
    out = _bias(out.astype(np.float64), inputs[3] if len(inputs) > 3 else None).astype(np.float32)
    out = activation(out.astype(np.float64), args)
    bad = ~np.isfinite(rows).all(axis=1)
    out[bad.any() if per_tensor else bad] = np.nan
    if x.ndim == 4:
        out = out.reshape(out.shape + (1, 1))
    return [out]


@kernel("MatMul")
def _matmul(inputs, args, _):
    a, b = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    if args.get("transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if args.get("transpose_b"):
        b = np.swapaxes(b, -1, -2)
    out = np.matmul(a, b)
    if len(inputs) > 2 and inputs[2] is not None:
        out = out + inputs[2].astype(np.float64)
    return [out]


@kernel("BatchNorm")
def _batch_norm(inputs, args, _):
    x = inputs[0].astype(np.float64)
    scale, offset = inputs[1].astype(np.float64), inputs[2].astype(np.float64)
    if len(inputs) > 4 and inputs[3] is not None:
        mean, var = inputs[3].astype(np.float64), inputs[4].astype(np.float64)
        scale = scale / np.sqrt(var + float(args.get("epsilon", 1e-5)))
        offset = offset - mean * scale
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return [activation(x * scale.reshape(shape) + offset.reshape(shape), args)]


@kernel("BiasAdd")
def _bias_add(inputs, args, _):
    return [activation(_bias(inputs[0].astype(np.float64), inputs[1]), args)]


@kernel("Activation")
def _activation(inputs, args, _):
    alpha = inputs[1].astype(np.float64) if len(inputs) > 1 else None
    return [activation(inputs[0].astype(np.float64), args, alpha)]


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


_ERF = np.vectorize(__import__("math").erf, otypes=[np.float64])
_UNARY = {
    "EXP": np.exp, "LOG": np.log, "FLOOR": np.floor, "CEIL": np.ceil,
    "ROUND": np.round, "SIGN": np.sign, "ERF": _ERF, "SOFTPLUS": _softplus,
    "SOFTSIGN": lambda x: x / (1 + np.abs(x)),
    "GELU": lambda x: 0.5 * x * (1 + _ERF(x / np.sqrt(2.0))),
    "GELU_TANH": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
    "MISH": lambda x: x * np.tanh(_softplus(x)),
    "SIN": np.sin, "COS": np.cos, "TAN": np.tan, "ASIN": np.arcsin, "ACOS": np.arccos,
    "ATAN": np.arctan, "SINH": np.sinh, "COSH": np.cosh, "ASINH": np.arcsinh,
    "ACOSH": np.arccosh, "ATANH": np.arctanh,
}


@kernel("Unary")
def _unary(inputs, args, _):
    x = inputs[0].astype(np.float64)
    kind = args["type"]
    selu = kind == "SELU"
    alpha = float(args.get("alpha", 1.67326319 if selu else 1.0))
    gamma = float(args.get("gamma", 1.05070102 if selu else 1.0))
    with np.errstate(all="ignore"):
        if kind == "ELU":
            return [np.where(x >= 0, x, alpha * np.expm1(x))]
        if kind == "SELU":
            return [gamma * np.where(x > 0, x, alpha * np.expm1(x))]
        if kind == "CELU":
            return [np.maximum(0, x) + np.minimum(0, alpha * np.expm1(x / alpha))]
        if kind == "THRESHOLDED_RELU":
            return [np.where(x > alpha, x, 0.0)]
        return [_UNARY[kind](x)]


# Cast: the value each element type holds for x, kept as float (see
# mace/ops/ref/cast.h). Float formats: stored mantissa bits, smallest normal
# exponent, largest finite value, infinity, negative zero, saturate applies.
_CAST_FLOATS = {
    "FLOAT16": (10, -14, 65504.0, True, True, False),
    "BFLOAT16": (7, -126, 255.0 * 2.0 ** 120, True, True, False),
    "FLOAT8E4M3FN": (3, -6, 448.0, False, True, True),
    "FLOAT8E4M3FNUZ": (3, -7, 240.0, False, False, True),
    "FLOAT8E5M2": (2, -14, 57344.0, True, True, True),
    "FLOAT8E5M2FNUZ": (2, -15, 57344.0, False, False, True),
}
# Integer types: bits, signed; up to 16 bits they wrap, wider ones clamp.
_CAST_INTS = {"INT8": (8, True), "UINT8": (8, False), "INT16": (16, True),
              "UINT16": (16, False), "INT32": (32, True), "UINT32": (32, False),
              "INT64": (64, True), "UINT64": (64, False)}


def cast_values(x: np.ndarray, to: str, saturate: bool = True,
                truncate: bool = False) -> np.ndarray:
    if to == "BFLOAT16" and truncate:   # the high 16 bits of the float32
        f = np.ascontiguousarray(x, np.float32)
        cut = (f.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
        return np.where(np.isnan(f), f, cut).astype(np.float64)
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        if to in ("FLOAT32", "DOUBLE"):
            return x
        if to == "BOOL":
            return (x != 0).astype(np.float64)
        if to in ("INT4", "UINT4"):
            low, high = (-8, 7) if to == "INT4" else (0, 15)
            return np.where(np.isfinite(x), np.clip(np.rint(x), low, high), 0)
        if to in _CAST_INTS:
            bits, signed = _CAST_INTS[to]
            span = 2.0 ** bits
            low = -span / 2 if signed else 0.0
            high = span / 2 - 1 if signed else span - 1
            t = np.trunc(np.where(np.isfinite(x), x, 0))
            if bits > 16:
                return np.clip(t, low, high)
            return np.mod(t - low, span) + low
        mantissa, min_exp, top, has_inf, neg_zero, saturates = _CAST_FLOATS[to]
        a = np.abs(x)
        _, exp = np.frexp(np.where(np.isfinite(a) & (a > 0), a, 1.0))
        spacing = np.ldexp(1.0, np.maximum(exp - 1, min_exp) - mantissa)
        r = np.where(np.isfinite(a), np.rint(a / spacing) * spacing, a)
        over = r > top
        if saturates and saturate:
            r = np.where(over, top, r)
        else:
            r = np.where(over, np.inf if has_inf else np.nan, r)
        r = np.copysign(r, x)
        if not neg_zero:
            r = np.where(r == 0, 0.0, r)
        return np.where(np.isnan(x), np.nan, r)


@kernel("Cast")
def _cast(inputs, args, _):
    return [cast_values(inputs[0], args["to"], bool(int(args.get("saturate", 1))),
                        bool(int(args.get("truncate", 0))))]


@kernel("Softmax")
def _softmax(inputs, args, _):
    x = inputs[0].astype(np.float64)
    axis = int(args.get("axis", -1))
    shifted = x - x.max(axis=axis, keepdims=True)
    if int(args.get("use_log", 0)):
        return [shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))]
    e = np.exp(shifted)
    return [e / e.sum(axis=axis, keepdims=True)]


@kernel("LocalResponseNorm")
def _lrn(inputs, args, _):
    x = inputs[0].astype(np.float64)
    radius = int(args.get("depth_radius", 5))
    bias = float(args.get("bias", 1.0))
    alpha = float(args.get("alpha", 1.0))
    beta = float(args.get("beta", 0.5))
    squares = np.pad(x * x, ((0, 0), (radius, radius), (0, 0), (0, 0)))
    channels = x.shape[1]
    total = sum(squares[:, i:i + channels] for i in range(2 * radius + 1))
    return [x / (bias + alpha * total) ** beta]


def _qdq_broadcast(value: np.ndarray, x: np.ndarray, args: dict) -> np.ndarray:
    """A QuantizeLinear/DequantizeLinear scale or zero point spread over x:
    one value, one per index of `axis`, or blocks of block_size along it."""
    value = np.asarray(value, np.float32)
    block = int(args.get("block_size", 0))
    if block == 0 and value.size == 1:
        return value.reshape(())
    axis = int(args.get("axis", 1)) % x.ndim
    if block == 0:
        shape = [1] * x.ndim
        shape[axis] = -1
        return value.reshape(shape)
    return np.repeat(value, block, axis=axis).take(range(x.shape[axis]), axis=axis)


QUANTIZED_RANGES = {"UINT8": (0, 255), "INT8": (-128, 127), "UINT16": (0, 65535),
                     "INT16": (-32768, 32767), "UINT4": (0, 15), "INT4": (-8, 7)}


@kernel("QuantizeLinear")
def _quantize_linear(inputs, args, _):
    x = np.asarray(inputs[0], np.float32)
    quotient = x / _qdq_broadcast(inputs[1], x, args)   # float32, as ONNX divides
    to = args.get("to", "UINT8")
    if to not in QUANTIZED_RANGES:
        q = cast_values(quotient, to, bool(int(args.get("saturate", 1))), False)
        if int(args.get("dequantize", 0)):
            return _dequantize_linear([q] + list(inputs[1:]), args, 1)
        return [q]
    zero_point = _qdq_broadcast(inputs[2], x, args) if len(inputs) > 2 and \
        inputs[2] is not None else np.float32(0)
    q = np.where(np.isnan(quotient), zero_point, np.rint(quotient) + zero_point)
    q = np.clip(q, *QUANTIZED_RANGES[to])
    if int(args.get("dequantize", 0)):
        return _dequantize_linear([q] + list(inputs[1:]), args, 1)
    return [q]


@kernel("DequantizeLinear")
def _dequantize_linear(inputs, args, _):
    x = np.asarray(inputs[0], np.float64)
    zero_point = _qdq_broadcast(inputs[2], x, args) if len(inputs) > 2 and \
        inputs[2] is not None else 0.0
    return [(x - zero_point) * _qdq_broadcast(inputs[1], x, args)]


@kernel("Dropout")
def _dropout(inputs, args, count):
    """Nothing dropped: the data and a mask of ones, when this run's ratio
    and training_mode allow it (mace/ops/dropout.h)."""
    ratio = float(np.asarray(inputs[1]).reshape(-1)[0]) if len(inputs) > 1 and \
        inputs[1] is not None else 0.5
    training = float(np.asarray(inputs[2]).reshape(-1)[0]) if len(inputs) > 2 and \
        inputs[2] is not None else 0.0
    if training and ratio:
        raise ValueError(f"Dropout in training mode with ratio {ratio} drops at random")
    x = inputs[0]
    return [x.copy(), np.ones_like(x, dtype=np.float32)][:count]
