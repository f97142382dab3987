"""Resize, block rearrangement and channel shuffle kernels (NCHW)."""
from __future__ import annotations

import numpy as np

from mace_converter.numpy_ops import kernel


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
def _channel_shuffle(inputs, args, _):
    x = inputs[0]
    n, c, h, w = x.shape
    g = int(args["group"])
    return [x.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)]


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
