"""Sliding-window arithmetic shared by the frontends, shape inference and the
numpy runner, following the rules of docs/reference/ops/conv_family.md."""
from __future__ import annotations

from typing import Optional, Sequence

VALID, SAME_UPPER, SAME_LOWER = 0, 1, 2


def same_pads(size: int, kernel: int, stride: int, dilation: int = 1,
              lower: bool = False) -> tuple[int, int]:
    """(before, after) padding of SAME: the output is ceil(size / stride)."""
    eff = (kernel - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    before = total - total // 2 if lower else total // 2
    return before, total - before


def window_output(size: int, kernel: int, stride: int, dilation: int,
                  pads: tuple[int, int], ceil_mode: bool = False) -> int:
    """Output length of one spatial axis with explicit (before, after) pads."""
    eff = (kernel - 1) * dilation + 1
    span = size + pads[0] + pads[1] - eff
    if span < 0:
        return 0
    if not ceil_mode:
        return span // stride + 1
    out = -(-span // stride) + 1
    # The last window may not start inside the trailing padding.
    if (out - 1) * stride >= size + pads[0]:
        out -= 1
    return out


def resolve_pads(args: dict, size_hw: Sequence[int], kernel_hw: Sequence[int]
                 ) -> tuple[int, int, int, int]:
    """[top, left, bottom, right] that an op with MACE window args uses."""
    strides = args.get("strides", [1, 1])
    dilations = args.get("dilations", [1, 1])
    if "pads" in args:
        return tuple(int(p) for p in args["pads"])  # type: ignore[return-value]
    padding = int(args.get("padding", VALID))
    if padding == VALID:
        return 0, 0, 0, 0
    lower = padding == SAME_LOWER
    top, bottom = same_pads(size_hw[0], kernel_hw[0], strides[0], dilations[0], lower)
    left, right = same_pads(size_hw[1], kernel_hw[1], strides[1], dilations[1], lower)
    return top, left, bottom, right


def window_shape(args: dict, size_hw: Sequence[int], kernel_hw: Sequence[int]
                 ) -> tuple[int, int, tuple[int, int, int, int]]:
    """(out_h, out_w, pads) of Conv2D, DepthwiseConv2d and Pooling."""
    strides = args.get("strides", [1, 1])
    dilations = args.get("dilations", [1, 1])
    pads = resolve_pads(args, size_hw, kernel_hw)
    ceil_mode = bool(args.get("ceil_mode", 0)) and \
        ("pads" in args or int(args.get("padding", VALID)) == VALID)
    out_h = window_output(size_hw[0], kernel_hw[0], strides[0], dilations[0],
                          (pads[0], pads[2]), ceil_mode)
    out_w = window_output(size_hw[1], kernel_hw[1], strides[1], dilations[1],
                          (pads[1], pads[3]), ceil_mode)
    return out_h, out_w, pads


def deconv_full(size: int, kernel: int, stride: int, dilation: int, output_padding: int) -> int:
    return (size - 1) * stride + dilation * (kernel - 1) + 1 + output_padding


def deconv_shape(args: dict, size_hw: Sequence[int], kernel_hw: Sequence[int]
                 ) -> tuple[int, int, tuple[int, int]]:
    """(out_h, out_w, (crop_top, crop_left)) of Deconv2D."""
    strides = args.get("strides", [1, 1])
    dilations = args.get("dilations", [1, 1])
    output_padding = args.get("output_padding", [0, 0])
    pads: Optional[Sequence[int]] = args.get("pads")
    padding = int(args.get("padding", VALID))
    outs, crops = [], []
    for axis in range(2):
        full = deconv_full(size_hw[axis], kernel_hw[axis], strides[axis], dilations[axis],
                           output_padding[axis])
        if pads is not None:
            begin, end = pads[axis], pads[axis + 2]
            outs.append(full - begin - end)
            crops.append(begin)
        elif padding == VALID:
            outs.append(full)
            crops.append(0)
        else:
            out = size_hw[axis] * strides[axis]
            total = max(full - out, 0)
            crops.append(total // 2 if padding == SAME_UPPER else total - total // 2)
            outs.append(out)
    return outs[0], outs[1], (crops[0], crops[1])
