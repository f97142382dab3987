"""Plain numpy versions of the ops the demo models use, for validation.

They are written independently of the C++ kernels (im2col + matmul here,
direct loops there), so agreement between the two means something.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def pad_nchw(x: np.ndarray, top: int, left: int, bottom: int, right: int) -> np.ndarray:
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: int, pads: Sequence,
           groups: int = 1) -> np.ndarray:
    """NCHW input, OIHW filter, pads = (top, left, bottom, right)."""
    x = pad_nchw(x, *pads).astype(np.float64)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - kh) // stride + 1
    ow = (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        # Columns: [n, cg*kh*kw, oh*ow]
        cols = np.stack([xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                         for i in range(kh) for j in range(kw)], axis=2)
        cols = cols.reshape(n, cg * kh * kw, oh * ow)
        wg = w[g * og:(g + 1) * og].reshape(og, cg, kh * kw).reshape(og, -1).astype(np.float64)
        out[:, g * og:(g + 1) * og] = np.einsum("ok,nkp->nop", wg, cols).reshape(n, og, oh, ow)
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def same_pads(size: int, kernel: int, stride: int) -> tuple[int, int, int, int]:
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total // 2, total - total // 2, total - total // 2


def relu6(x: np.ndarray) -> np.ndarray:
    return np.clip(x, 0, 6)


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)



