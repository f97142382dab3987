"""Shape rules of MACE's shape, layout and spatial ops (registered into
shape_inference on import)."""
from __future__ import annotations

import numpy as np

from mace_converter.shape_inference import _axis, _rank, fail, rule

# Argument names of ops whose names are shared with the frontends.
TRANSPOSE_PERM = "dims"
PAD_AMOUNTS = "paddings"


@rule("Concat")
def _concat(op, shapes, graph):
    rank = len(shapes[0])
    axis = _axis(op, int(op.args.get("axis", 1)), rank)
    total = 0
    for shape in shapes:
        if len(shape) != rank or any(a != b for i, (a, b) in enumerate(zip(shape, shapes[0]))
                                     if i != axis):
            raise fail(op, f"inputs {[list(s) for s in shapes]} differ outside axis {axis}")
        total += shape[axis]
    out = list(shapes[0])
    out[axis] = total
    return [tuple(out)]


@rule("Split")
def _split(op, shapes, graph):
    x = shapes[0]
    axis = _axis(op, int(op.args.get("axis", 1)), len(x))
    sizes = op.args.get("split")
    count = len(op.outputs)
    if not sizes:
        if x[axis] % count:
            raise fail(op, f"axis {axis} of {list(x)} does not split into {count} parts")
        sizes = [x[axis] // count] * count
    if sum(sizes) != x[axis] or len(sizes) != count:
        raise fail(op, f"split sizes {list(sizes)} do not cover axis {axis} of {list(x)}")
    outs = []
    for size in sizes:
        shape = list(x)
        shape[axis] = size
        outs.append(tuple(shape))
    return outs


def slice_range(start: int, end: int, step: int, dim: int) -> range:
    """The indices ONNX/numpy slicing selects (clamped)."""
    return range(dim)[slice(start, end, step)]


@rule("Slice")
def _slice(op, shapes, graph):
    x = list(shapes[0])
    starts, ends = op.args["starts"], op.args["ends"]
    axes = op.args.get("axes", list(range(len(starts))))
    steps = op.args.get("steps", [1] * len(starts))
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis = _axis(op, axis, len(x))
        x[axis] = len(slice_range(start, end, step, x[axis]))
    return [tuple(x)]


@rule("Reshape")
def _reshape(op, shapes, graph):
    x = shapes[0]
    shape = [int(d) for d in op.args["shape"]]
    total = int(np.prod(x))
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        shape[shape.index(-1)] = total // max(known, 1)
    if int(np.prod(shape)) != total:
        raise fail(op, f"cannot reshape {list(x)} to {op.args['shape']}")
    return [tuple(shape)]


@rule("Squeeze")
def _squeeze(op, shapes, graph):
    x = shapes[0]
    axes = op.args.get("axis")
    if not axes:
        return [tuple(d for d in x if d != 1)]
    axes = {_axis(op, a, len(x)) for a in axes}
    for a in axes:
        if x[a] != 1:
            raise fail(op, f"cannot squeeze axis {a} of {list(x)}")
    return [tuple(d for i, d in enumerate(x) if i not in axes)]


@rule("Transpose")
def _transpose(op, shapes, graph):
    x = shapes[0]
    perm = op.args[TRANSPOSE_PERM]
    if sorted(perm) != list(range(len(x))):
        raise fail(op, f"{list(perm)} is not a permutation of {len(x)} axes")
    return [tuple(x[p] for p in perm)]


@rule("Pad")
def _pad(op, shapes, graph):
    x = shapes[0]
    pads = op.args[PAD_AMOUNTS]
    if len(pads) != 2 * len(x):
        raise fail(op, f"{PAD_AMOUNTS} {list(pads)} need two values per axis of {list(x)}")
    return [tuple(d + pads[2 * i] + pads[2 * i + 1] for i, d in enumerate(x))]


@rule("Reduce")
def _reduce(op, shapes, graph):
    x = shapes[0]
    axes = op.args.get("axis") or list(range(len(x)))
    axes = {_axis(op, a, len(x)) for a in axes}
    keep = int(op.args.get("keepdims", 1))
    return [tuple(1 if i in axes else d for i, d in enumerate(x) if keep or i not in axes)]


@rule("ArgMax")
def _argmax(op, shapes, graph):
    x = shapes[0]
    axis = _axis(op, int(op.args.get("axis", 0)), len(x))
    keep = int(op.args.get("keepdims", 1))
    return [tuple(1 if i == axis else d for i, d in enumerate(x) if keep or i != axis)]


@rule("ResizeBilinear", "ResizeNearestNeighbor")
def _resize(op, shapes, graph):
    x = shapes[0]
    _rank(op, x, 4)
    if "size" in op.args:
        out_h, out_w = op.args["size"]
    elif len(op.inputs) > 1 and op.inputs[1]:
        out_h, out_w = (int(v) for v in graph.const(op.inputs[1]))
    else:
        out_h = int(np.floor(np.float32(x[2]) * np.float32(op.args["height_scale"])))
        out_w = int(np.floor(np.float32(x[3]) * np.float32(op.args["width_scale"])))
    return [(x[0], x[1], out_h, out_w)]


def resize_axes(shape, args: dict) -> list[tuple[int, float, float, float]]:
    """(out_len, scale, roi_start, roi_end) of each axis of the general
    Resize op (mace/ops/resize_nd.h): ONNX's output sizes and scale factors,
    in double precision as ONNX's definition computes them."""
    rank = len(shape)
    axes = [int(a) % rank for a in args.get("axes") or range(rank)]
    out = [(int(d), 1.0, 0.0, 1.0) for d in shape]
    scales, sizes = args.get("scales"), args.get("sizes")
    policy = args.get("keep_aspect_ratio_policy", "stretch")
    roi = args.get("roi") or [0.0] * len(axes) + [1.0] * len(axes)
    if sizes:
        ratios = [int(s) / shape[a] for a, s in zip(axes, sizes)]
        keep = min(ratios) if policy == "not_larger" else max(ratios)
    for k, a in enumerate(axes):
        if scales:
            scale = float(np.float32(scales[k]))
            length = int(np.floor(scale * shape[a]))
        elif policy != "stretch":
            scale, length = keep, int(keep * shape[a] + 0.5)
        else:
            length = int(sizes[k])
            scale = length / shape[a]
        out[a] = (length, scale, float(np.float32(roi[k])), float(np.float32(roi[len(axes) + k])))
    return out


@rule("Resize")
def _resize_nd(op, shapes, graph):
    return [tuple(length for length, _, _, _ in resize_axes(shapes[0], op.args))]


@rule("ChannelShuffle")
def _channel_shuffle(op, shapes, graph):
    _rank(op, shapes[0], 4)
    if shapes[0][1] % int(op.args["group"]):
        raise fail(op, f"group {op.args['group']} does not divide {shapes[0][1]} channels")
    # Several outputs: the fused Split's equal pieces of the channels.
    count = len(op.outputs)
    if shapes[0][1] % count:
        raise fail(op, f"{shapes[0][1]} channels do not split into {count} outputs")
    n, c, h, w = shapes[0]
    return [(n, c // count, h, w)] * count


@rule("DepthToSpace")
def _depth_to_space(op, shapes, graph):
    n, c, h, w = shapes[0]
    b = int(op.args["block_size"])
    if c % (b * b):
        raise fail(op, f"{c} channels do not divide by block_size^2 = {b * b}")
    return [(n, c // (b * b), h * b, w * b)]


@rule("SpaceToDepth")
def _space_to_depth(op, shapes, graph):
    n, c, h, w = shapes[0]
    b = int(op.args["block_size"])
    if h % b or w % b:
        raise fail(op, f"{h}x{w} does not divide by block_size {b}")
    return [(n, c * b * b, h // b, w // b)]


@rule("SpaceToBatchND")
def _space_to_batch(op, shapes, graph):
    n, c, h, w = shapes[0]
    bh, bw = op.args["block_shape"]
    top, bottom, left, right = op.args.get("paddings", [0, 0, 0, 0])
    h, w = h + top + bottom, w + left + right
    if h % bh or w % bw:
        raise fail(op, f"padded {h}x{w} does not divide by block {bh}x{bw}")
    return [(n * bh * bw, c, h // bh, w // bw)]


@rule("BatchToSpaceND")
def _batch_to_space(op, shapes, graph):
    n, c, h, w = shapes[0]
    bh, bw = op.args["block_shape"]
    top, bottom, left, right = op.args.get("crops", [0, 0, 0, 0])
    return [(n // (bh * bw), c, h * bh - top - bottom, w * bw - left - right)]


@rule("GridSample")
def _grid_sample(op, shapes, graph):
    x, grid = shapes[0], shapes[1]
    if len(x) == 5 and len(grid) == 5 and grid[4] == 3 and grid[0] == x[0]:
        return [(x[0], x[1], grid[1], grid[2], grid[3])]
    if len(x) != 4 or len(grid) != 4 or grid[3] != 2 or grid[0] != x[0]:
        raise fail(op, f"X {list(x)} and grid {list(grid)} must be [N, C, H, W] and "
                       "[N, H_out, W_out, 2]")
    return [(x[0], x[1], grid[1], grid[2])]
