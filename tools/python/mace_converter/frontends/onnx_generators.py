"""ONNX ops that make a tensor from a shape or from a few scalars:
EyeLike, ConstantOfShape, Range, OneHot, the Hann, Hamming and Blackman
windows, and AffineGrid.

A result that depends only on static shapes is a constant of the model.
Where a run-time value decides the output's length (ConstantOfShape's shape,
Range's bounds, OneHot's depth), the engine plans the shape the model
declares, and a Reshape with a run-time shape checks on every run that the
value gives that length (the window's size likewise): a run whose value gives another is refused, never
answered with the planned length.
"""
from __future__ import annotations

import numpy as np
from onnx import helper, numpy_helper

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter, planned_shape
from mace_converter.frontends.onnx_more import _compare, _scalar, _value
from mace_converter.shape_rules import TRANSPOSE_PERM

_SUM, _SUB, _PROD, _DIV, _MAX = 0, 1, 2, 3, 5


@converter("EyeLike")
def eye_like(node: Node) -> None:
    """Ones on diagonal k of a matrix of the input's shape: a constant."""
    shape = node.shape(0)
    if len(shape) != 2:
        raise node.fail(f"the input has shape {list(shape)}; EyeLike takes a 2-D tensor")
    dtype = node.attr("dtype", None)
    np_type = helper.tensor_dtype_to_np_dtype(dtype) if dtype is not None else np.float32
    node.values[node.outputs[0]] = np.eye(shape[0], shape[1], int(node.attr("k", 0)),
                                          dtype=np_type)


def _fill_value(node: Node) -> np.ndarray:
    value = node.attr("value", None)
    if value is None:
        return np.zeros(1, np.float32)
    array = np.asarray(value if isinstance(value, np.ndarray)
                       else numpy_helper.to_array(value)).reshape(-1)
    if array.size != 1:
        raise node.fail(f"value holds {array.size} elements; it must hold one")
    return array


def _checked(node: Node, length: str, values: np.ndarray) -> str:
    """The constant 1-D `values` as a tensor the engine makes only when the
    run-time `length` (a one-element tensor, at least 0) equals
    len(values): a Reshape of len(values) + 1 numbers to [length + 1],
    then a Slice of the first len(values)."""
    planned = len(values)
    padded = node.weight(f"{node.name}_checked",
                         np.append(values, 0).astype(np.float32))
    one_more = node.emit("Eltwise", [length], {"type": _SUM, "scalar_input": 1.0,
                                               "scalar_input_index": 1}).outputs[0]
    shape = node.emit("Reshape", [one_more], {"shape": [1]}).outputs[0]
    checked = node.emit("Reshape", [padded, shape], {"shape": [planned + 1]},
                        planned=[(planned + 1,)]).outputs[0]
    return node.emit("Slice", [checked], {"starts": [0], "ends": [planned], "axes": [0],
                                          "steps": [1]}).outputs[0]


def _checked_length(node: Node, length: str, planned: int) -> str:
    """A [planned] index ramp 0, 1, ..., planned - 1, made only when the
    run-time `length` equals `planned`."""
    return _checked(node, length, np.arange(planned, dtype=np.float32))


# Cosine terms a0, a1, a2 of w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
_WINDOWS = {"HannWindow": (0.5, 0.5, 0.0), "HammingWindow": (25 / 46, 21 / 46, 0.0),
            "BlackmanWindow": (0.42, 0.5, 0.08)}


@converter(*_WINDOWS)
def window(node: Node) -> None:
    """The window of `size` points (N = size when `periodic`, else
    size - 1): constants computed at conversion for the declared length,
    which each run's size is checked against."""
    if node.known(0):
        length = int(np.asarray(node.const(0, "size")).reshape(-1)[0])
        size = None
    else:
        (length,) = planned_shape(node, "size")
        size = node.emit("Reshape", [_value(node, 0)], {"shape": [1]}).outputs[0]
    if length < 1:
        raise node.fail(f"size {length} gives no points")
    a0, a1, a2 = _WINDOWS[node.op_type]
    span = length if int(node.attr("periodic", 1)) else length - 1
    phase = 2 * np.pi * np.arange(length) / max(span, 1)
    values = (a0 - a1 * np.cos(phase) + a2 * np.cos(2 * phase)).astype(np.float32)
    if size is None:
        node.values[node.outputs[0]] = values
        return
    node.emit_out("Identity", [_checked(node, size, values)])


@converter("ConstantOfShape")
def constant_of_shape(node: Node) -> None:
    """A constant shape was evaluated at conversion; a run-time shape is
    planned from the declared output shape and checked on every run by a
    Tile in expand mode (as Expand to a computed shape)."""
    value = _fill_value(node)
    planned = list(planned_shape(node, "the shape input"))
    if len(node.shape(0)) != 1 or node.shape(0)[0] != len(planned):
        raise node.fail(f"the shape input has shape {list(node.shape(0))} but the declared "
                        f"output shape {planned} has rank {len(planned)}")
    if not planned:
        raise node.fail(f"the declared output shape {planned} has no rank; a run-time shape "
                        "must give a tensor of rank 1 or more")
    source = node.weight(f"{node.name}_value",
                         np.full([1] * len(planned), value[0], dtype=np.float32))
    node.emit_out("Tile", [source, node.tensor(0)],
                  {"repeats": planned, "expand": 1}, planned=[tuple(planned)])


@converter("Range")
def range_op(node: Node) -> None:
    """start + i * delta for i < max(ceil((limit - start) / delta), 0),
    with the length planned from the declared output shape and checked on
    every run."""
    (length,) = planned_shape(node, "start, limit or delta")
    if length == 0:
        raise node.fail("the declared output shape [0] has no elements")
    start, limit, delta = (_value(node, i) for i in range(3))
    for i in range(3):
        if int(np.prod(node.shape(i))) != 1:
            raise node.fail(f"input {i} has shape {list(node.shape(i))}; it must be a scalar")
    span = node.emit("Eltwise", [limit, start], {"type": _SUB}).outputs[0]
    steps = node.emit("Eltwise", [span, delta], {"type": _DIV}).outputs[0]
    steps = node.emit("Unary", [steps], {"type": "CEIL"}).outputs[0]
    count = node.emit("Eltwise", [steps], {"type": _MAX, "scalar_input": 0.0,
                                           "scalar_input_index": 1}).outputs[0]
    ramp = _checked_length(node, count, length)
    scaled = node.emit("Eltwise", [ramp, delta], {"type": _PROD}).outputs[0]
    shifted = node.emit("Eltwise", [scaled, start], {"type": _SUM}).outputs[0]
    node.emit_out("Reshape", [shifted], {"shape": [length]})


@converter("OneHot")
def one_hot(node: Node) -> None:
    """values[1] where an index (negative ones counted from depth) equals
    the position along `axis`, values[0] elsewhere; the depth is planned
    from the declared output shape and checked on every run."""
    shape = list(node.shape(0))
    rank = len(shape) + 1
    axis = int(node.attr("axis", -1))
    if not -rank <= axis < rank:
        raise node.fail(f"axis {axis} is out of range for an output of rank {rank}")
    axis %= rank
    if node.known(1):
        depth = int(np.asarray(node.const(1, "depth")).reshape(-1)[0])
        ramp = node.weight(f"{node.name}_ramp", np.arange(depth, dtype=np.float32))
    else:
        declared = list(planned_shape(node, "depth"))
        if len(declared) != rank:
            raise node.fail(f"the declared output shape {declared} does not have rank {rank}")
        depth = declared[axis]
        count = node.emit("Reshape", [_value(node, 1)], {"shape": [1]}).outputs[0]
        ramp = _checked_length(node, count, depth)
    if int(np.prod(node.shape(2))) != 2:
        raise node.fail(f"values has shape {list(node.shape(2))}; it must hold 2 values")
    positions = [1] * rank
    positions[axis] = depth
    ramp = node.emit("Reshape", [ramp], {"shape": positions}).outputs[0]
    indices = _value(node, 0)
    # Negative indices count from depth; x - depth * (x < 0) is exact.
    negative = _compare(node, "less", indices, _scalar(node, "zero", 0.0))
    shift = node.emit("Eltwise", [negative], {"type": _PROD, "scalar_input": float(depth),
                                              "scalar_input_index": 1}).outputs[0]
    indices = node.emit("Eltwise", [indices, shift], {"type": _SUM}).outputs[0]
    expanded = shape[:axis] + [1] + shape[axis:]
    indices = node.emit("Reshape", [indices], {"shape": expanded}).outputs[0]
    hot = _compare(node, "equal", indices, ramp)
    values = node.emit("Reshape", [_value(node, 2)], {"shape": [2]}).outputs[0]
    off = node.emit("Slice", [values], {"starts": [0], "ends": [1], "axes": [0], "steps": [1]}).outputs[0]
    on = node.emit("Slice", [values], {"starts": [1], "ends": [2], "axes": [0], "steps": [1]}).outputs[0]
    node.emit_out("Where", [hot, on, off])


def _grid_axis(size: int, align_corners: bool) -> np.ndarray:
    """Normalized coordinates of `size` points: the pixel centers in
    [-1, 1], ending at -1 and 1 with align_corners."""
    if align_corners:
        return np.linspace(-1.0, 1.0, size) if size > 1 else np.array([-1.0])
    return (2.0 * np.arange(size) + 1.0) / size - 1.0


@converter("AffineGrid")
def affine_grid(node: Node) -> None:
    """theta [N, 2, 3] (or [N, 3, 4]) times the homogeneous coordinates
    (x, y, [z,] 1) of every output point: a MatMul of a constant grid by
    theta transposed. A run-time size is planned from the declared output
    shape, which a Reshape to [size[0], size[2], ...] checks on every run."""
    theta = list(node.shape(0))
    if len(theta) != 3 or tuple(theta[1:]) not in ((2, 3), (3, 4)):
        raise node.fail(f"theta has shape {theta}; it must be [N, 2, 3] or [N, 3, 4]")
    batch, dims, homogeneous = theta
    if node.known(1):
        size = [int(v) for v in np.asarray(node.const(1, "size")).reshape(-1)]
        if len(size) != dims + 2 or size[0] != batch:
            raise node.fail(f"size {size} does not fit theta {theta}")
        spatial, check = size[2:], None
    else:
        declared = list(planned_shape(node, "size"))
        if len(declared) != dims + 2 or declared[0] != batch or declared[-1] != dims:
            raise node.fail(f"the declared output shape {declared} does not fit theta {theta}")
        if list(node.shape(1)) != [dims + 2]:
            raise node.fail(f"size has shape {list(node.shape(1))}; it must be [{dims + 2}]")
        spatial, check = declared[1:-1], _value(node, 1)
    align = bool(int(node.attr("align_corners", 0)))
    mesh = np.meshgrid(*[_grid_axis(d, align) for d in spatial], indexing="ij")
    points = int(np.prod(spatial))
    # x runs along the last axis, y (and z) along the ones before.
    coords = np.stack([m.reshape(-1) for m in reversed(mesh)] + [np.ones(points)], axis=1)
    base = node.weight(f"{node.name}_base", np.ascontiguousarray(
        np.broadcast_to(coords, (batch, points, homogeneous)), dtype=np.float32))
    transposed = node.emit("Transpose", [node.tensor(0)], {TRANSPOSE_PERM: [0, 2, 1]}).outputs[0]
    grid = node.emit("MatMul", [base, transposed]).outputs[0]
    out = [batch] + list(spatial) + [dims]
    if check is None:
        node.emit_out("Reshape", [grid], {"shape": out})
        return
    first = node.emit("Slice", [check], {"starts": [0], "ends": [1], "axes": [0],
                                         "steps": [1]}).outputs[0]
    rest = node.emit("Slice", [check], {"starts": [2], "ends": [dims + 2], "axes": [0],
                                        "steps": [1]}).outputs[0]
    last = node.weight(f"{node.name}_dims", np.array([dims], np.float32))
    shape = node.emit("Concat", [first, rest, last], {"axis": 0}).outputs[0]
    node.emit_out("Reshape", [grid, shape], {"shape": out}, planned=[tuple(out)])
