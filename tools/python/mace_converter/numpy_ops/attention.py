"""The numpy reference of the engine's Attention op (mace/ops/attention.h):
per batch and head, Softmax(Q K^T * scale + mask) V, in float64, with the
scores and the probabilities optionally fake-quantized in float32."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mace_converter.numpy_ops import kernel

# How Q, K, V and the output hold their heads ("layouts" argument). PACKED
# is [B, S, 3*H*D]: Q, K and V side by side in each row, input i (q 0, k 1,
# v 2) reading the i-th third.
PER_HEAD, MERGED, TRANSPOSED, PACKED = 0, 1, 2, 3


def per_head(array: np.ndarray, layout: int, heads: int, part: int = 0) -> np.ndarray:
    """`array` in `layout` as [B, H, S, D]; `part` is the input's index (its
    third of a PACKED array)."""
    if layout in (MERGED, PACKED):
        if array.ndim == 2:  # [S, H*D]: one batch
            array = array[np.newaxis]
        if layout == PACKED:
            width = array.shape[-1] // 3
            array = array[..., part * width:(part + 1) * width]
        batch, rows, width = array.shape
        return array.reshape(batch, rows, heads, width // heads).transpose(0, 2, 1, 3)
    if layout == TRANSPOSED:
        return array.transpose(0, 1, 3, 2)
    return array


def output_shape(q: Sequence[int], v: Sequence[int], layouts: Sequence[int],
                 heads: int) -> tuple[int, ...]:
    """The output's shape for Q's and V's shapes."""
    if layouts[0] in (MERGED, PACKED):
        batch, rows = (1, q[0]) if len(q) == 2 else (q[0], q[1])
    else:
        batch, heads, rows = q[0], q[1], q[2]
    if layouts[2] in (MERGED, PACKED):
        v_depth = v[-1] // (heads * (3 if layouts[2] == PACKED else 1))
    else:
        v_depth = v[3]
    if layouts[3] == MERGED:
        return (batch, rows, heads * v_depth)
    return (batch, heads, rows, v_depth)


def fake_quantize(x: np.ndarray, values: Sequence[float]) -> np.ndarray:
    """x rounded to float32 and fake-quantized with (scale, zero point, low,
    high), as QuantizeLinear with `dequantize` computes it."""
    scale, zero_point, low, high = (float(np.float32(value)) for value in values)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        quotient = x.astype(np.float32) / np.float32(scale)
    q = np.where(np.isnan(quotient), zero_point, np.rint(quotient) + zero_point)
    q = np.clip(q.astype(np.float64), low, high)
    return ((q - zero_point) * scale).astype(np.float32).astype(np.float64)


def layouts_of(args: dict) -> list[int]:
    return [int(x) for x in args.get("layouts", [PER_HEAD] * 4)]


@kernel("Attention")
def _attention(inputs, args, _):
    layouts, heads = layouts_of(args), int(args.get("heads", 0))
    q, k, v = (per_head(inputs[i].astype(np.float64), layouts[i], heads, i) for i in range(3))
    scale = float(args["scale"]) if "scale" in args else 1.0 / np.sqrt(q.shape[-1])
    scores = np.matmul(q, k.transpose(0, 1, 3, 2)) * scale
    if len(inputs) > 3 and inputs[3] is not None:
        mask = inputs[3].astype(np.float64)
        kind = args.get("mask", "add")
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind == "add":
            scores = scores + mask
        else:
            keep = (mask != 0) if kind == "keep_nonzero" else (mask == 0)
            scores = np.where(keep, scores, float(args.get("fill", 0.0)))
    if "scores_quant" in args:
        scores = fake_quantize(scores, args["scores_quant"])
    top = scores.max(axis=-1, keepdims=True)
    masked = top == -np.inf
    with np.errstate(invalid="ignore"):
        weights = np.exp(scores - np.where(masked, 0.0, top))
    weights = np.where(masked, 0.0, weights / np.where(masked, 1.0, weights.sum(-1, keepdims=True)))
    if "probs_quant" in args:
        weights = fake_quantize(weights, args["probs_quant"])
    out = np.matmul(weights, v)
    if layouts[3] == MERGED:
        batch, count, rows, depth = out.shape
        out = out.transpose(0, 2, 1, 3).reshape(batch, rows, count * depth)
    return [out]
