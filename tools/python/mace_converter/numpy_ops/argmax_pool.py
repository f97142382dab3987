"""MaxPoolArgmax and MaxUnpool (docs/reference/ops/conv_family.md), over
whole arrays: the pooling visits the window's taps in row-major order and
keeps a tap only where it is strictly greater, the unpooling decodes the
indices with C's truncating division and resolves pixels that share a
destination by keeping the last one."""
from __future__ import annotations

import numpy as np

from mace_converter.numpy_ops import kernel


@kernel("MaxPoolArgmax")
def _max_pool_argmax(inputs, args, outputs):
    x = inputs[0].astype(np.float32)
    n, c, h, w = x.shape
    kh, kw = args["kernels"]
    sh, sw = args.get("strides", [1, 1])
    top, left, bottom, right = args.get("pads", [0, 0, 0, 0])
    out_h = (h + top + bottom - kh) // sh + 1
    out_w = (w + left + right - kw) // sw + 1
    best = np.full((n, c, out_h, out_w), np.finfo(np.float32).min, np.float32)
    where = np.zeros((n, c, out_h, out_w), np.int64)
    rows = np.arange(out_h) * sh - top
    cols = np.arange(out_w) * sw - left
    for ky in range(kh):
        for kx in range(kw):
            r, q = rows + ky, cols + kx
            inside = ((r >= 0) & (r < h))[:, None] & ((q >= 0) & (q < w))[None, :]
            tap = x[:, :, np.clip(r, 0, h - 1)][:, :, :, np.clip(q, 0, w - 1)]
            better = inside & (tap > best)     # NaN is never greater
            best = np.where(better, tap, best)
            where = np.where(better, ky * kw + kx, where)
    result = [best]
    if outputs == 2:
        result.append(where.astype(np.float32) + np.float32(0.1))
    return result


@kernel("MaxUnpool")
def _max_unpool(inputs, args, _):
    x, index = inputs[0].astype(np.float32), inputs[1].astype(np.float32)
    n, c, h, w = x.shape
    kw = args["kernels"][1]
    sh, sw = args.get("strides", [1, 1])
    top, left = args.get("pads", [0, 0])
    out_h, out_w = args["output_size"]
    usable = np.isfinite(index) & (index >= -2.0 ** 31) & (index < 2.0 ** 31)
    at = np.trunc(np.where(usable, index, 0)).astype(np.int64)
    dy = np.sign(at) * (np.abs(at) // kw)     # C's division truncates toward zero
    dx = at - dy * kw
    oy = np.arange(h)[:, None] * sh - top + dy
    ox = np.arange(w)[None, :] * sw - left + dx
    keep = usable & (oy >= 0) & (oy < out_h) & (ox >= 0) & (ox < out_w)
    plane = np.arange(n * c).reshape(n, c, 1, 1)
    target = ((plane * out_h + oy) * out_w + ox)[keep]
    values = x[keep]                          # row-major: later pixels come later
    last = len(target) - 1 - np.unique(target[::-1], return_index=True)[1]
    out = np.zeros(n * c * out_h * out_w, np.float32)
    out[target[last]] = values[last]
    return [out.reshape(n, c, out_h, out_w)]
