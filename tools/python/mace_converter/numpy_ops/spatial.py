"""Resize, block rearrangement and channel shuffle kernels (NCHW)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter.numpy_ops import kernel
from mace_converter.shape_rules import resize_axes


def _out_size(x: np.ndarray, inputs, args) -> tuple[int, int, float, float]:
    """(out_h, out_w, scale_h, scale_w); scales are 0 when the size is given."""
    if len(inputs) > 2 and inputs[2] is not None:  # scales, [h, w] or [1, 1, h, w]
        scales = np.asarray(inputs[2], np.float32).reshape(-1)
        sh, sw = scales[-2], scales[-1]
    elif len(inputs) > 1 and inputs[1] is not None:  # sizes, [h, w] or [N, C, h, w]
        sizes = np.asarray(inputs[1]).reshape(-1)
        return int(sizes[-2]), int(sizes[-1]), 0.0, 0.0
    elif "size" in args:
        return int(args["size"][0]), int(args["size"][1]), 0.0, 0.0
    else:
        sh, sw = np.float32(args["height_scale"]), np.float32(args["width_scale"])
    return (int(np.floor(np.float32(x.shape[2]) * sh)), int(np.floor(np.float32(x.shape[3]) * sw)),
            float(sh), float(sw))


def _mode(args: dict, default: str) -> str:
    if int(args.get("align_corners", 0)):
        return "align_corners"
    return args.get("coordinate_transformation_mode", default)


def source_coordinates(mode: str, in_len: int, out_len: int, scale: float) -> np.ndarray:
    x = np.arange(out_len, dtype=np.float64)
    if mode in ("half_pixel", "pytorch_half_pixel"):
        if mode == "pytorch_half_pixel" and out_len == 1:
            return np.zeros(1)
        if scale > 0:
            return (x + 0.5) / scale - 0.5
        return ((2 * x + 1) * in_len - out_len) / (2.0 * out_len)
    if mode == "align_corners":
        if out_len == 1:
            return np.zeros(1)
        return x * (in_len - 1) / (out_len - 1)
    if mode == "asymmetric":
        return x / scale if scale > 0 else x * in_len / out_len
    raise ValueError(f"unknown coordinate_transformation_mode {mode}")


@kernel("ResizeBilinear")
def _resize_bilinear(inputs, args, _):
    x = inputs[0].astype(np.float64)
    out_h, out_w, sh, sw = _out_size(x, inputs, args)
    mode = _mode(args, "half_pixel")

    def taps(in_len, out_len, scale):
        src = np.clip(source_coordinates(mode, in_len, out_len, scale), 0, in_len - 1)
        low = np.floor(src).astype(np.int64)
        high = np.minimum(low + 1, in_len - 1)
        return low, high, src - low

    y0, y1, fy = taps(x.shape[2], out_h, sh)
    x0, x1, fx = taps(x.shape[3], out_w, sw)
    top = x[:, :, y0][:, :, :, x0] * (1 - fx) + x[:, :, y0][:, :, :, x1] * fx
    bottom = x[:, :, y1][:, :, :, x0] * (1 - fx) + x[:, :, y1][:, :, :, x1] * fx
    fy = fy.reshape(-1, 1)
    return [top * (1 - fy) + bottom * fy]


@kernel("ResizeNearestNeighbor")
def _resize_nearest(inputs, args, _):
    x = inputs[0]
    out_h, out_w, sh, sw = _out_size(x, inputs, args)
    mode = _mode(args, "asymmetric")
    rounding = args.get("nearest_mode", "round_prefer_floor")

    def index(in_len, out_len, scale):
        src = source_coordinates(mode, in_len, out_len, scale)
        if rounding == "round_prefer_floor":
            idx = np.ceil(src - 0.5)
        elif rounding == "round_prefer_ceil":
            idx = np.floor(src + 0.5)
        elif rounding == "floor":
            idx = np.floor(src)
        else:
            idx = np.ceil(src)
        return np.clip(idx, 0, in_len - 1).astype(np.int64)

    return [x[:, :, index(x.shape[2], out_h, sh)][:, :, :, index(x.shape[3], out_w, sw)]]


def _general_coordinate(mode: str, x: float, in_len: int, out_len: int, scale: float,
                        roi: tuple[float, float]) -> Optional[float]:
    """ONNX's source coordinate of output index x; None outside the crop."""
    out = scale * in_len
    if mode == "align_corners":
        return 0.0 if out == 1 else x * (in_len - 1) / (out - 1)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_crop_and_resize":
        span = roi[1] - roi[0]
        src = (span * (in_len - 1) / 2 if out == 1 else x * span * (in_len - 1) / (out - 1)) \
            + roi[0] * (in_len - 1)
        return src if 0 <= src <= in_len - 1 else None
    if mode == "pytorch_half_pixel" and out == 1:
        return -0.5
    if mode == "half_pixel_symmetric":
        return in_len / 2 * (1 - out_len / out) + (x + 0.5) / scale - 0.5
    return (x + 0.5) / scale - 0.5


def _general_coefficients(args: dict, ratio: float, scale: float) -> np.ndarray:
    mode = args.get("mode", "nearest")
    if mode == "nearest":
        rounding = args.get("nearest_mode", "round_prefer_floor")
        up = ratio == 1 or {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5,
                            "floor": False, "ceil": True}[rounding]
        return np.array([0.0, 1.0]) if up else np.array([1.0, 0.0])
    a = float(args.get("cubic_coeff_a", -0.75))

    def weight(t: np.ndarray) -> np.ndarray:
        t = np.abs(t)
        if mode == "linear":
            return np.clip(1 - t, 0, 1)
        near = ((a + 2) * t - (a + 3)) * t * t + 1
        far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
        return np.where(t <= 1, near, np.where(t < 2, far, 0.0))

    reach = 1 if mode == "linear" else 2
    s = min(scale, 1.0) if int(args.get("antialias", 0)) else 1.0
    start = int(np.floor(-reach / s)) + 1
    c = weight((np.arange(start, 2 - start) - ratio) * s)
    return c / c.sum() if int(args.get("antialias", 0)) else c


@kernel("Resize")
def _resize_general(inputs, args, _):
    """Axis by axis, last first; the taps of each output index are the n
    indices of the edge-padded input nearest its source coordinate."""
    x = inputs[0].astype(np.float64)
    args = dict(args)
    for index, name in ((1, "roi"), (2, "scales"), (3, "sizes")):
        if len(inputs) > index and inputs[index] is not None:
            args[name] = [v.item() for v in np.asarray(inputs[index]).reshape(-1)]
    mode = args.get("coordinate_transformation_mode", "half_pixel")
    extrapolation = float(args.get("extrapolation_value", 0.0))
    exclude = int(args.get("exclude_outside", 0))
    for axis, (out_len, scale, roi0, roi1) in reversed(list(enumerate(resize_axes(x.shape, args)))):
        in_len = x.shape[axis]
        moved = np.moveaxis(x, axis, 0)
        rows = []
        for i in range(out_len):
            src = _general_coordinate(mode, i, in_len, out_len, scale, (roi0, roi1))
            if src is None:
                rows.append(np.full(moved.shape[1:], extrapolation))
                continue
            ratio = 1.0 if src == np.floor(src) else src - np.floor(src)
            c = _general_coefficients(args, ratio, scale)
            pad = (len(c) + 1) // 2
            order = sorted(range(in_len + 2 * pad), key=lambda j: (abs(src + pad - j), j))
            taps = np.array(sorted(order[:len(c)])) - pad
            if exclude:
                c = np.where((taps < 0) | (taps >= in_len), 0.0, c)
                c = c / c.sum()
            rows.append(np.tensordot(c, moved[np.clip(taps, 0, in_len - 1)], axes=1))
        x = np.moveaxis(np.stack(rows), 0, axis)
    return [x]


@kernel("DepthToSpace")
def _depth_to_space(inputs, args, _):
    x = inputs[0]
    n, c, h, w = x.shape
    b = int(args["block_size"])
    if args.get("mode", "DCR") == "CRD":
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    else:
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return [y.reshape(n, c // (b * b), h * b, w * b)]


@kernel("SpaceToDepth")
def _space_to_depth(inputs, args, _):
    x = inputs[0]
    n, c, h, w = x.shape
    b = int(args["block_size"])
    y = x.reshape(n, c, h // b, b, w // b, b)
    if args.get("mode", "DCR") == "CRD":
        y = y.transpose(0, 1, 3, 5, 2, 4)
    else:
        y = y.transpose(0, 3, 5, 1, 2, 4)
    return [y.reshape(n, c * b * b, h // b, w // b)]


@kernel("ChannelShuffle")
def _channel_shuffle(inputs, args, count):
    x = inputs[0]
    n, c, h, w = x.shape
    g = int(args["group"])
    y = x.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)
    return np.split(y, count, axis=1)


@kernel("SpaceToBatchND")
def _space_to_batch(inputs, args, _):
    x = inputs[0]
    bh, bw = (int(v) for v in args["block_shape"])
    top, bottom, left, right = (int(v) for v in args.get("paddings", [0, 0, 0, 0]))
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // bh, bh, w // bw, bw).transpose(3, 5, 0, 1, 2, 4)
    return [y.reshape(bh * bw * n, c, h // bh, w // bw)]


@kernel("BatchToSpaceND")
def _batch_to_space(inputs, args, _):
    x = inputs[0]
    bh, bw = (int(v) for v in args["block_shape"])
    top, bottom, left, right = (int(v) for v in args.get("crops", [0, 0, 0, 0]))
    nb, c, h, w = x.shape
    n = nb // (bh * bw)
    y = x.reshape(bh, bw, n, c, h, w).transpose(2, 3, 4, 0, 5, 1).reshape(n, c, h * bh, w * bw)
    return [y[:, :, top:h * bh - bottom, left:w * bw - right]]


def _grid_bounds(size: int, align: bool) -> tuple[float, float]:
    return (0.0, size - 1.0) if align else (-0.5, size - 0.5)


def _grid_reflect(v: np.ndarray, low: float, high: float) -> np.ndarray:
    span = high - low
    if span <= 0:
        return np.full_like(v, low)
    below = v < low
    dx = np.where(below, low - v, v - high)
    rest = np.fmod(dx, span)
    odd = np.fmod(np.floor(dx / span), 2) != 0
    reflected = np.where(below, np.where(odd, high - rest, low + rest),
                         np.where(odd, low + rest, high - rest))
    return np.where((v >= low) & (v <= high), v, reflected)


def _grid_tap(i: np.ndarray, size: int, padding: str, align: bool) -> np.ndarray:
    """The index a neighbour at integer position i reads, -1 for a zero."""
    if padding == "zeros":
        return np.where((i >= 0) & (i < size), i, -1)
    if padding == "border":
        return np.clip(i, 0, size - 1)
    low, high = _grid_bounds(size, align)
    return np.clip(_grid_reflect(i.astype(np.float64), low, high).astype(np.int64), 0,
                   size - 1)


def _grid_sample_volume(x: np.ndarray, grid: np.ndarray, args) -> np.ndarray:
    """Volumetric GridSample, linear or nearest: x [N, C, D, H, W], grid
    [N, D_out, H_out, W_out, 3] of (x, y, z)."""
    n, c = x.shape[:2]
    sizes = x.shape[:1:-1]          # along grid components x, y, z: W, H, D
    mode, padding = args.get("mode", "bilinear"), args.get("padding_mode", "zeros")
    align = bool(args.get("align_corners", 0))
    finite = np.all(np.isfinite(grid), axis=-1)
    firsts, weights = [], []
    for a, size in enumerate(sizes):
        g = np.where(finite, grid[..., a], 0.0)
        v = (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2
        if mode == "nearest":
            v = np.rint(v)
        low, high = _grid_bounds(size, align)
        if padding == "border":
            v = np.where((v < low) | (v > high), np.clip(v, 0, size - 1), v)
        elif padding == "reflection":
            v = _grid_reflect(v, low, high)
        v = np.clip(v, -2.0 ** 24, 2.0 ** 24)
        f = v if mode == "nearest" else np.floor(v)
        firsts.append(f.astype(np.int64))
        weights.append([np.ones_like(v)] if mode == "nearest" else [1 - (v - f), v - f])

    def tap(i, size):
        return _grid_tap(i, size, padding, align)

    batch = np.arange(n).reshape(n, 1, 1, 1)
    out = np.zeros(grid.shape[:-1] + (c,))
    taps = len(weights[0])
    for k in range(taps):
        for i in range(taps):
            for j in range(taps):
                xs, ys, zs = (tap(firsts[a] + d, sizes[a]) for a, d in ((0, j), (1, i), (2, k)))
                valid = (xs >= 0) & (ys >= 0) & (zs >= 0)
                values = x[batch, :, np.maximum(zs, 0), np.maximum(ys, 0), np.maximum(xs, 0)]
                weight = weights[2][k] * weights[1][i] * weights[0][j] * valid
                out += weight[..., None] * values
    out = np.where(finite[..., None], out, 0.0)
    return out.transpose(0, 4, 1, 2, 3).astype(np.float32)


@kernel("GridSample")
def _grid_sample(inputs, args, _):
    """ONNX GridSample on NCHW (mace/ops/ref/grid_sample.h), in float64."""
    x, grid = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    if x.ndim == 5:
        return [_grid_sample_volume(x, grid, args)]
    n, c, h, w = x.shape
    mode, padding = args.get("mode", "bilinear"), args.get("padding_mode", "zeros")
    align = bool(args.get("align_corners", 0))
    with np.errstate(invalid="ignore", over="ignore"):
        px = (grid[..., 0] + 1) / 2 * (w - 1) if align else ((grid[..., 0] + 1) * w - 1) / 2
        py = (grid[..., 1] + 1) / 2 * (h - 1) if align else ((grid[..., 1] + 1) * h - 1) / 2
    finite = np.isfinite(px) & np.isfinite(py)
    px, py = np.where(finite, px, 0.0), np.where(finite, py, 0.0)
    if mode == "nearest":
        px, py = np.rint(px), np.rint(py)

    def place(v, size):
        low, high = _grid_bounds(size, align)
        if padding == "border":
            v = np.where((v < low) | (v > high), np.clip(v, 0, size - 1), v)
        elif padding == "reflection":
            v = _grid_reflect(v, low, high)
        return np.clip(v, -2.0 ** 24, 2.0 ** 24)

    def tap(i, size):
        return _grid_tap(i, size, padding, align)

    if mode in ("bicubic", "cubic"):     # as onnxruntime: only the taps are placed
        px, py = np.clip(px, -2.0 ** 24, 2.0 ** 24), np.clip(py, -2.0 ** 24, 2.0 ** 24)
    else:
        px, py = place(px, w), place(py, h)
    batch = np.arange(n).reshape(n, 1, 1)
    out = np.zeros((n,) + px.shape[1:] + (c,))

    def add(rows, columns, weight):
        r, col = tap(rows, h), tap(columns, w)
        valid = (r >= 0) & (col >= 0)
        values = x[batch, :, np.maximum(r, 0), np.maximum(col, 0)]     # [n, oh, ow, c]
        out[...] += (weight * valid)[..., None] * values

    if mode == "nearest":
        add(py.astype(np.int64), px.astype(np.int64), np.ones_like(px))
    else:
        fx, fy = np.floor(px), np.floor(py)
        tx, ty = px - fx, py - fy
        if mode in ("bilinear", "linear"):
            offsets, wx, wy = (0, 1), [1 - tx, tx], [1 - ty, ty]
        else:
            def cubic(t):
                a = -0.75
                d = [t + 1, t, 1 - t, 2 - t]
                return [((a * d[0] - 5 * a) * d[0] + 8 * a) * d[0] - 4 * a,
                        ((a + 2) * d[1] - (a + 3)) * d[1] * d[1] + 1,
                        ((a + 2) * d[2] - (a + 3)) * d[2] * d[2] + 1,
                        ((a * d[3] - 5 * a) * d[3] + 8 * a) * d[3] - 4 * a]
            offsets, wx, wy = (-1, 0, 1, 2), cubic(tx), cubic(ty)
        for i, dy in enumerate(offsets):
            for j, dx in enumerate(offsets):
                add(fy.astype(np.int64) + dy, fx.astype(np.int64) + dx, wy[i] * wx[j])
    out = np.where(finite[..., None], out, 0.0)
    return [out.transpose(0, 3, 1, 2).astype(np.float32)]
