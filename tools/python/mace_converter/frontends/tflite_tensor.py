"""TFLite converters for reductions, shape and data movement ops. They work
on TFLite's own (NHWC) order, except where an NCHW tensor can stay NCHW:
reductions, concatenation, padding and the depth <-> space ops."""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.tensorflow_frontend import NCHW_AXIS, TO_NCHW
from mace_converter.frontends.tflite_frontend import TfliteNode
from mace_converter.frontends.tflite_model import TYPE_NAMES
from mace_converter.frontends.tflite_ops import converter
from mace_converter.shape_rules import PAD_AMOUNTS, TRANSPOSE_PERM

_BOUND = 2 ** 31 - 1


def _axis(node: TfliteNode, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise node.fail(f"axis {axis} is outside rank {rank}")
    return axis % rank


def _flat_order_kept(node: TfliteNode) -> bool:
    if node.layout(0) != "nchw":
        return False
    _, h, w, c = node.tf_shape(0)
    return h * w == 1 or c == 1


def _target(node: TfliteNode) -> list[int]:
    """The output shape of RESHAPE, SQUEEZE or EXPAND_DIMS, from the input's."""
    shape = list(node.tf_shape(0))
    if node.op_type == "EXPAND_DIMS":
        axis = int(node.const(1, "axis").reshape(-1)[0])
        axis = _axis(node, axis, len(shape) + 1)
        return shape[:axis] + [1] + shape[axis:]
    if node.op_type == "SQUEEZE":
        dims = node.option("SqueezeDimsAsNumpy") if node.option("SqueezeDimsLength", 0) \
            else []
        axes = {_axis(node, int(a), len(shape)) for a in dims} or \
            {i for i, d in enumerate(shape) if d == 1}
        return [d for i, d in enumerate(shape) if i not in axes]
    if node.has_input(1):
        target = [int(v) for v in node.const(1, "shape").reshape(-1)]
    else:
        target = [int(v) for v in node.option("NewShapeAsNumpy", [])] \
            if node.option("NewShapeLength", 0) else list(node.out_shape())
    if target.count(-1) == 1:
        known = int(np.prod([d for d in target if d != -1]))
        target[target.index(-1)] = int(np.prod(shape)) // max(known, 1)
    return target


@converter("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
def reshape(node: TfliteNode) -> None:
    shape = _target(node)
    if int(np.prod(shape)) != int(np.prod(node.tf_shape(0))):
        raise node.fail(f"output shape {shape} does not hold the input's "
                        f"{list(node.tf_shape(0))}")
    source = node.inputs[0] if _flat_order_kept(node) else node.tf(0)
    node.produce("Reshape", [source], {"shape": shape or [1]})


@converter("TRANSPOSE")
def transpose(node: TfliteNode) -> None:
    perm = [int(v) for v in node.const(1, "perm")]
    if sorted(perm) != list(range(node.rank(0))):
        raise node.fail(f"perm {perm} is not a permutation of rank {node.rank(0)}")
    node.produce("Transpose", [node.tf(0)], {TRANSPOSE_PERM: perm})


_REDUCE = {"MEAN": 0, "REDUCE_MIN": 1, "REDUCE_MAX": 2, "REDUCE_PROD": 3, "SUM": 4}


@converter(*_REDUCE)
def reduce(node: TfliteNode) -> None:
    kind = _REDUCE[node.op_type]
    rank = len(node.tf_shape(0))
    axes = sorted({_axis(node, int(a), rank) for a in np.atleast_1d(node.const(1, "axes"))})
    keep = bool(node.option("KeepDims", False))
    remaining = [NCHW_AXIS[a] for a in range(rank) if a not in axes] if rank == 4 else []
    if node.layout(0) == "nchw" and (keep or remaining == sorted(remaining)):
        args = {"reduce_type": kind, "axis": sorted(NCHW_AXIS[a] for a in axes),
                "keepdims": int(keep)}
        node.produce("Reduce", [node.kept(0)], args, "nchw" if keep else "tf")
        return
    node.produce("Reduce", [node.tf(0)], {"reduce_type": kind, "axis": axes,
                                          "keepdims": int(keep)})


@converter("CONCATENATION")
def concat(node: TfliteNode) -> None:
    count = len(node.inputs)
    rank = len(node.tf_shape(0))
    axis = _axis(node, int(node.option("Axis", 0)), rank)
    tensors = [i for i in range(count) if not node.is_const(i)]
    if rank == 4 and tensors and all(node.layout(i) == "nchw" for i in tensors):
        node.produce_fused("Concat", [node.nchw(i) for i in range(count)],
                           {"axis": NCHW_AXIS[axis]}, "nchw")
    else:
        node.produce_fused("Concat", [node.tf(i) for i in range(count)], {"axis": axis})


@converter("PACK")
def pack(node: TfliteNode) -> None:
    shape = list(node.tf_shape(0))
    axis = _axis(node, int(node.option("Axis", 0)), len(shape) + 1)
    lifted = shape[:axis] + [1] + shape[axis:]
    parts = [node.emit("Reshape", [node.tf(i)], {"shape": lifted}).outputs[0]
             for i in range(len(node.inputs))]
    node.produce("Concat", parts, {"axis": axis})


@converter("UNPACK")
def unpack(node: TfliteNode) -> None:
    shape = list(node.tf_shape(0))
    axis = _axis(node, int(node.option("Axis", 0)), len(shape))
    if len(node.outputs) != shape[axis]:
        raise node.fail(f"{len(node.outputs)} outputs for axis {axis} of {shape}")
    rest = [d for i, d in enumerate(shape) if i != axis] or [1]
    pieces = node.emit("Split", [node.tf(0)], {"axis": axis, "split": [1] * shape[axis]},
                       count=shape[axis]).outputs
    for piece, out in zip(pieces, node.outputs):
        node.emit("Reshape", [piece], {"shape": rest}, outputs=[out])


def _split(node: TfliteNode, data: int, axis_input: int, sizes: list[int]) -> None:
    shape = list(node.tf_shape(data))
    axis = _axis(node, int(node.const(axis_input, "axis").reshape(-1)[0]), len(shape))
    if -1 in sizes:
        sizes[sizes.index(-1)] = shape[axis] - (sum(sizes) + 1)
    if sum(sizes) != shape[axis] or len(sizes) != len(node.outputs) or min(sizes) < 0:
        raise node.fail(f"split sizes {sizes} do not cover axis {axis} of {shape} in "
                        f"{len(node.outputs)} outputs")
    node.emit("Split", [node.tf(data)], {"axis": axis, "split": sizes}, outputs=node.outputs)


@converter("SPLIT")
def split(node: TfliteNode) -> None:
    count = len(node.outputs)
    shape = list(node.tf_shape(1))
    axis = _axis(node, int(node.const(0, "axis").reshape(-1)[0]), len(shape))
    if shape[axis] % count:
        raise node.fail(f"axis {axis} of {shape} does not split into {count} equal parts")
    _split(node, 1, 0, [shape[axis] // count] * count)


@converter("SPLIT_V")
def split_v(node: TfliteNode) -> None:
    _split(node, 0, 2, [int(v) for v in node.const(1, "size_splits")])


def _slice(node: TfliteNode, starts, ends, steps, shrink: list[int]) -> None:
    shape = list(node.tf_shape(0))
    args = {"starts": starts, "ends": ends, "axes": list(range(len(shape))), "steps": steps}
    if not shrink:
        node.produce("Slice", [node.tf(0)], args)
        return
    piece = node.emit("Slice", [node.tf(0)], args).outputs[0]
    kept = [d for i, d in enumerate(node.graph.shape(piece)) if i not in shrink]
    node.produce("Reshape", [piece], {"shape": kept or [1]})


@converter("SLICE")
def slice_(node: TfliteNode) -> None:
    shape = list(node.tf_shape(0))
    begin = [int(v) for v in node.const(1, "begin")]
    size = [int(v) for v in node.const(2, "size")]
    if len(begin) != len(shape) or len(size) != len(shape):
        raise node.fail(f"begin {begin} and size {size} must have {len(shape)} values")
    ends = [d if s == -1 else b + s for b, s, d in zip(begin, size, shape)]
    _slice(node, begin, ends, [1] * len(shape), [])


@converter("STRIDED_SLICE")
def strided_slice(node: TfliteNode) -> None:
    shape = list(node.tf_shape(0))
    rank = len(shape)
    begin = [int(v) for v in node.const(1, "begin")]
    end = [int(v) for v in node.const(2, "end")]
    strides = [int(v) for v in node.const(3, "strides")] if node.has_input(3) else [1] * rank
    if int(node.option("EllipsisMask", 0)) or int(node.option("NewAxisMask", 0)) or \
            bool(node.option("Offset", False)):
        raise node.fail("ellipsis_mask, new_axis_mask and offset are not supported")
    if not len(begin) == len(end) == len(strides) <= rank or 0 in strides:
        raise node.fail(f"begin {begin}, end {end} and strides {strides} do not fit rank "
                        f"{rank}")
    begin_mask, end_mask = int(node.option("BeginMask", 0)), int(node.option("EndMask", 0))
    shrink_mask = int(node.option("ShrinkAxisMask", 0))
    starts, ends, steps, shrink = [], [], [], []
    for i in range(rank):
        if i >= len(begin):
            starts.append(0), ends.append(_BOUND), steps.append(1)
            continue
        step = strides[i]
        start = begin[i] if not begin_mask >> i & 1 else (0 if step > 0 else _BOUND)
        stop = end[i] if not end_mask >> i & 1 else (_BOUND if step > 0 else -_BOUND)
        if shrink_mask >> i & 1:
            start = start + shape[i] if start < 0 else start
            stop, step = start + 1, 1
            shrink.append(i)
        starts.append(max(min(start, _BOUND), -_BOUND))
        ends.append(max(min(stop, _BOUND), -_BOUND))
        steps.append(step)
    _slice(node, starts, ends, steps, shrink)


@converter("REVERSE_V2")
def reverse(node: TfliteNode) -> None:
    rank = node.rank(0)
    axes = sorted({_axis(node, int(a), rank) for a in np.atleast_1d(node.const(1, "axis"))})
    node.produce("Slice", [node.tf(0)], {"starts": [-1] * len(axes),
                                         "ends": [-_BOUND] * len(axes), "axes": axes,
                                         "steps": [-1] * len(axes)})


@converter("GATHER")
def gather(node: TfliteNode) -> None:
    rank = node.rank(0)
    axis = _axis(node, int(node.option("Axis", 0)), rank)
    if int(node.option("BatchDims", 0)):
        raise node.fail("batch_dims is not supported")
    data = node.tf(0)
    if node.is_const(1):
        indices = node.const(1, "indices").astype(np.int64)
        flat = np.where(indices < 0, indices + node.tf_shape(0)[axis], indices).reshape(-1)
        if indices.ndim <= 1 and flat.size and not np.any(np.diff(flat) != 1):
            args = {"starts": [int(flat[0])], "ends": [int(flat[-1]) + 1], "axes": [axis],
                    "steps": [1]}
            if indices.ndim == 1:
                node.produce("Slice", [data], args)
                return
            piece = node.emit("Slice", [data], args).outputs[0]
            kept = [d for i, d in enumerate(node.graph.shape(piece)) if i != axis]
            node.produce("Reshape", [piece], {"shape": kept or [1]})
            return
    node.produce("Gather", [data, node.tf(1)], {"axis": axis})


@converter("PAD", "PADV2", "MIRROR_PAD")
def pad(node: TfliteNode) -> None:
    paddings = node.const(1, "paddings").astype(np.int64).reshape(-1, 2)
    if paddings.shape[0] != node.rank(0) or np.any(paddings < 0):
        raise node.fail(f"paddings {paddings.tolist()} do not fit rank {node.rank(0)}")
    args: dict = {}
    if node.op_type == "MIRROR_PAD":
        # MirrorPadMode 0 REFLECT, 1 SYMMETRIC; the engine's pad_type 1, 2.
        args["pad_type"] = int(node.option("Mode", 0)) + 1
    if node.op_type == "PADV2" and node.has_input(2):
        value = float(node.const(2, "constant_values").reshape(-1)[0])
        if value != 0.0:
            args["constant_value"] = value
    if node.layout(0) == "nchw":
        args[PAD_AMOUNTS] = [int(v) for v in paddings[TO_NCHW].reshape(-1)]
        node.produce("Pad", [node.kept(0)], args, "nchw")
    else:
        args[PAD_AMOUNTS] = [int(v) for v in paddings.reshape(-1)]
        node.produce("Pad", [node.tf(0)], args)


@converter("DEPTH_TO_SPACE", "SPACE_TO_DEPTH")
def depth_space(node: TfliteNode) -> None:
    """TFLite's channel order ((row offset, column offset), channel) is the
    DCR order of the NCHW ops."""
    op_type = "DepthToSpace" if node.op_type == "DEPTH_TO_SPACE" else "SpaceToDepth"
    node.produce(op_type, [node.nchw(0)], {"block_size": int(node.option("BlockSize", 0))},
                 "nchw")


@converter("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR")
def resize(node: TfliteNode) -> None:
    size = [int(v) for v in node.const(1, "size")]
    align = bool(node.option("AlignCorners", False))
    half = bool(node.option("HalfPixelCenters", False))
    if align and half:
        raise node.fail("align_corners with half_pixel_centers is not supported")
    args: dict = {"size": size}
    bilinear = node.op_type == "RESIZE_BILINEAR"
    if align:
        args["coordinate_transformation_mode"] = "align_corners"
        if not bilinear:
            args["nearest_mode"] = "round_prefer_ceil"
    elif half:
        # Bilinear: (x + 0.5) / scale - 0.5. Nearest: floor((x + 0.5) / scale),
        # which is half_pixel rounded half up.
        args["coordinate_transformation_mode"] = "half_pixel"
        if not bilinear:
            args["nearest_mode"] = "round_prefer_ceil"
    else:
        args["coordinate_transformation_mode"] = "asymmetric"
        if not bilinear:
            args["nearest_mode"] = "floor"
    node.produce("ResizeBilinear" if bilinear else "ResizeNearestNeighbor", [node.nchw(0)],
                 args, "nchw")


@converter("ARG_MAX")
def arg_max(node: TfliteNode) -> None:
    axis = _axis(node, int(node.const(1, "axis").reshape(-1)[0]), node.rank(0))
    node.produce("ArgMax", [node.tf(0)], {"axis": axis, "keepdims": 0})


@converter("TILE")
def tile(node: TfliteNode) -> None:
    repeats = [int(v) for v in node.const(1, "multiples")]
    if len(repeats) != node.rank(0) or min(repeats, default=1) < 1:
        raise node.fail(f"multiples {repeats} need one positive value per dimension")
    node.produce("Tile", [node.tf(0)], {"repeats": repeats})


@converter("BROADCAST_TO")
def broadcast_to(node: TfliteNode) -> None:
    """Broadcast to a constant shape: a Reshape to the target's rank where
    the input's is lower, then a Tile of the dimensions of size 1."""
    shape = list(node.tf_shape(0))
    target = [int(v) for v in np.atleast_1d(node.const(1, "shape"))]
    if len(target) < len(shape):
        raise node.fail(f"shape {target} has a lower rank than the input's {shape}")
    full = [1] * (len(target) - len(shape)) + shape
    if any(a != b and a != 1 for a, b in zip(full, target)) or min(target, default=1) < 1:
        raise node.fail(f"input shape {shape} does not broadcast to {target}")
    source = node.tf(0)
    if full != shape:
        source = node.emit("Reshape", [source], {"shape": full}).outputs[0]
    repeats = [b // a for a, b in zip(full, target)]
    if all(r == 1 for r in repeats):
        node.produce("Identity", [source])
        return
    node.produce("Tile", [source], {"repeats": repeats})


# TFLite TensorType -> the engine Cast's target type.
CAST_TYPES = {0: "FLOAT32", 2: "INT32", 3: "UINT8", 4: "INT64", 6: "BOOL", 7: "INT16", 9: "INT8"}


@converter("CAST")
def cast(node: TfliteNode) -> None:
    out = node.model.tensors[node.op.outputs[0]].dtype
    source = node.model.tensors[node.op.inputs[0]].dtype
    if out not in CAST_TYPES:
        raise node.fail(f"CAST to {TYPE_NAMES.get(out, out)} is not supported")
    if out == source:
        node.produce("Identity", [node.kept(0)], layout=node.layout(0))
        return
    node.produce("Cast", [node.kept(0)], {"to": CAST_TYPES[out]}, node.layout(0))
