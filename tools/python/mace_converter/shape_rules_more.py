"""Shape rules of MACE's comparison, logic, indexing, normalization and
argmax pooling ops (registered into shape_inference on import)."""
from __future__ import annotations

import numpy as np

from mace_converter.shape_inference import _axis, broadcast, fail, rule


@rule("Bitwise", "Compare", "Mod", "Where")
def _broadcast_all(op, shapes, graph):
    out = shapes[0]
    for shape in shapes[1:]:
        out = broadcast(op, out, shape)
    return [out]


@rule("LayerNorm")
def _layer_norm(op, shapes, graph):
    x = shapes[0]
    axis = _axis(op, int(op.args.get("axis", -1)), len(x))
    inner = int(np.prod(x[axis:]))
    for index, what in ((1, "scale"), (2, "bias")):
        if index < len(shapes) and shapes[index] is not None \
                and int(np.prod(shapes[index])) != inner:
            raise fail(op, f"{what} {list(shapes[index])} does not hold the {inner} values of "
                           f"the normalized axes {list(x[axis:])}")
    stats = tuple(x[:axis]) + (1,) * (len(x) - axis)
    return [x] + [stats] * (len(op.outputs) - 1)


@rule("Attention")
def _attention(op, shapes, graph):
    from mace_converter.numpy_ops.attention import layouts_of, output_shape
    layouts, heads = layouts_of(op.args), int(op.args.get("heads", 0))
    q, v = shapes[0], shapes[2]
    ranks = [(2, 3) if layout in (1, 3) else (4,) for layout in layouts[:3]]
    for index, (shape, rank) in enumerate(zip(shapes[:3], ranks)):
        if len(shape) not in rank:
            raise fail(op, f"input {index} {list(shape)} needs rank {' or '.join(map(str, rank))} "
                           "for its layout")
    return [output_shape(q, v, layouts, heads)]


@rule("Gather", "GatherDequantize")
def _gather(op, shapes, graph):
    data, indices = shapes[0], shapes[1]
    axis = _axis(op, int(op.args.get("axis", 0)), len(data))
    return [tuple(data[:axis]) + tuple(indices) + tuple(data[axis + 1:])]


@rule("GatherElements")
def _gather_elements(op, shapes, graph):
    if len(shapes[0]) != len(shapes[1]):
        raise fail(op, f"indices {list(shapes[1])} need the rank of data {list(shapes[0])}")
    return [shapes[1]]


@rule("ScatterElements", "ScatterND")
def _scatter(op, shapes, graph):
    return [shapes[0]]


@rule("GatherND")
def _gather_nd(op, shapes, graph):
    data, indices = shapes[0], shapes[1]
    batch = int(op.args.get("batch_dims", 0))
    depth = indices[-1]
    if not 1 <= depth <= len(data) - batch:
        raise fail(op, f"indices {list(indices)} do not fit data {list(data)}")
    return [tuple(indices[:-1]) + tuple(data[batch + depth:])]


@rule("Trilu", "CumSum")
def _same_as_input(op, shapes, graph):
    return [shapes[0]]


@rule("Tile")
def _tile(op, shapes, graph):
    repeats = [int(r) for r in op.args["repeats"]]
    if len(repeats) != len(shapes[0]):
        raise fail(op, f"repeats {repeats} do not fit input {list(shapes[0])}")
    return [tuple(d * r for d, r in zip(shapes[0], repeats))]


@rule("TopK")
def _top_k(op, shapes, graph):
    x = list(shapes[0])
    x[_axis(op, int(op.args.get("axis", -1)), len(x))] = int(op.args["k"])
    return [tuple(x), tuple(x)]


@rule("MaxPoolArgmax")
def _max_pool_argmax(op, shapes, graph):
    x = shapes[0]
    if len(x) != 4:
        raise fail(op, f"input {list(x)} needs rank 4 (NCHW)")
    kernel = op.args["kernels"]
    strides = op.args.get("strides", [1, 1])
    pads = op.args.get("pads", [0, 0, 0, 0])
    out = [x[0], x[1]]
    for axis in range(2):
        padded = x[2 + axis] + pads[axis] + pads[axis + 2]
        if padded < kernel[axis]:
            raise fail(op, f"the window {list(kernel)} does not fit the input {list(x)}")
        out.append((padded - kernel[axis]) // strides[axis] + 1)
    return [tuple(out)] * len(op.outputs)


@rule("MaxUnpool")
def _max_unpool(op, shapes, graph):
    x, indices = shapes[0], shapes[1]
    if len(x) != 4 or tuple(indices) != tuple(x):
        raise fail(op, f"values {list(x)} and indices {list(indices)} need one rank 4 shape")
    return [tuple(x[:2]) + tuple(op.args["output_size"])]
