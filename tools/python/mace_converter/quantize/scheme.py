"""The arithmetic of the uint8 scheme (mace/ops/common/quantize.h):
real = scale * (q - zero_point); uint8 asymmetric activations, uint8
per-tensor or int8 symmetric per-channel weights, int32 bias in units of
input scale x weight scale."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.ir import QuantParams


def round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def check_scale(scale: float, what: str) -> None:
    if not (math.isfinite(scale) and scale > 0):
        raise ConversionError(f"{what} gets scale {scale}; a scale must be finite and positive")


def activation_params(low: float, high: float, what: str) -> QuantParams:
    """uint8 asymmetric over [low, high] widened to hold 0, so that real 0
    (padding, ReLU) is exact."""
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ConversionError(f"{what} has range [{low}, {high}], which is not finite")
    low, high = min(low, 0.0), max(high, 0.0)
    if high - low < 1e-8:
        high = low + 1e-8     # a constant-zero tensor still needs a positive scale
    scale = (high - low) / 255.0
    check_scale(scale, what)
    zero_point = int(min(255, max(0, round_half_away(np.float64(-low / scale)))))
    return QuantParams(scale=float(np.float32(scale)), zero_point=zero_point, minval=low,
                       maxval=high)


def quantize_values(values: np.ndarray, quant: QuantParams) -> np.ndarray:
    q = round_half_away(values.astype(np.float64) / np.float32(quant.scale)) + quant.zero_point
    return np.clip(q, 0, 255).astype(np.uint8)


def dequantize_values(q: np.ndarray, quant: QuantParams) -> np.ndarray:
    return np.float32(quant.scale) * (q.astype(np.float32) - np.float32(quant.zero_point))


def weight_uint8(weight: np.ndarray, what: str) -> tuple[np.ndarray, QuantParams]:
    quant = activation_params(float(weight.min()), float(weight.max()), what)
    return quantize_values(weight, quant), quant


def channel_rows(weight: np.ndarray, layout: str = "leading") -> np.ndarray:
    """The weight as one row per output channel.

    "leading": row o is slice o of dimension 0 (Conv2D [out, in, kh, kw],
    FullyConnected [out, in]). "depthwise": the filter is MACE's
    [multiplier, channels, kh, kw] and output channel o = c * multiplier + m
    reads element [m, c], so row o is weight[m, c] (the order of the
    bias, of the output's channels, and of an ONNX depthwise weight
    [channels * multiplier, 1, kh, kw])."""
    if layout == "depthwise":
        return np.swapaxes(weight, 0, 1).reshape(weight.shape[0] * weight.shape[1], -1)
    if layout != "leading":
        raise ValueError(f"unknown channel layout '{layout}'")
    return weight.reshape(weight.shape[0], -1)


def from_channel_rows(rows: np.ndarray, shape: tuple[int, ...], layout: str = "leading"):
    """The inverse of channel_rows."""
    if layout == "depthwise":
        multiplier, channels = shape[0], shape[1]
        return np.swapaxes(rows.reshape(channels, multiplier, *shape[2:]), 0, 1)
    return rows.reshape(shape)


def weight_int8_per_channel(weight: np.ndarray, what: str,
                            scales: Optional[np.ndarray] = None,
                            layout: str = "leading") -> tuple[np.ndarray, QuantParams]:
    """Symmetric per output channel (channel_rows), values in [-127, 127];
    `scales` given (an imported model's) are kept."""
    flat = channel_rows(weight, layout).astype(np.float64)
    channels = flat.shape[0]
    own = scales is None
    if scales is None:
        absmax = np.abs(flat).max(axis=1)
        scales = np.where(absmax > 0, absmax / 127.0, 1.0)
    scales = np.asarray(scales, dtype=np.float32).reshape(-1)
    if scales.size == 1:
        scales = np.full(channels, scales[0], dtype=np.float32)
    for channel, scale in enumerate(scales):
        check_scale(float(scale), f"{what} (channel {channel})")
    lowest = -127 if own else -128          # an imported model may use -128
    q = round_half_away(flat / scales.astype(np.float64)[:, None])
    q = np.clip(q, lowest, 127).astype(np.int8)
    q = np.ascontiguousarray(from_channel_rows(q, weight.shape, layout))
    return q, QuantParams(scale=0.0, zero_point=0, channel_scales=[float(s) for s in scales])


def fits_scales(weight: np.ndarray, scales: np.ndarray, layout: str = "leading") -> bool:
    """Whether `weight` is int8 multiples of `scales` (per output channel, or
    one scale), as a dequantized int8 weight is."""
    flat = channel_rows(weight, layout).astype(np.float64)
    scales = np.asarray(scales, dtype=np.float64).reshape(-1)
    if scales.size not in (1, flat.shape[0]) or not np.all(scales > 0):
        return False
    units = flat / (scales[:, None] if scales.size > 1 else scales[0])
    return bool(np.all(np.abs(units - np.round(units)) < 1e-3) and np.abs(units).max() <= 128.5)


def channel_scales(quant: QuantParams, channels: int) -> np.ndarray:
    if quant.channel_scales is not None:
        return np.asarray(quant.channel_scales, dtype=np.float64)
    return np.full(channels, quant.scale, dtype=np.float64)


def bias_int32(bias: np.ndarray, input_scale: float, weight: QuantParams,
               what: str) -> tuple[np.ndarray, QuantParams]:
    """int32 in units of input scale x the channel's weight scale."""
    units = float(np.float32(input_scale)) * channel_scales(weight, bias.size)
    for channel, unit in enumerate(units):
        check_scale(float(unit), f"{what} (channel {channel})")
    q = round_half_away(bias.astype(np.float64) / units)
    limit = np.iinfo(np.int32)
    q = np.clip(q, limit.min, limit.max).astype(np.int32)
    per_tensor = weight.channel_scales is None
    return q, QuantParams(scale=float(units[0]) if per_tensor else 0.0, zero_point=0)
