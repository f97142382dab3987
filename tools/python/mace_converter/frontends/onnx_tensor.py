"""ONNX converters: shape and layout ops, resizing, reductions."""
from __future__ import annotations

import itertools

import numpy as np

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import (computed, converter, declared_shape,
                                                  normalize_axis, planned_shape, spatial_2d)
from mace_converter.shape_rules import PAD_AMOUNTS, TRANSPOSE_PERM

INT64_MAX = np.iinfo(np.int64).max


def _reshape(node: Node, shape: list[int]) -> None:
    node.emit_out("Reshape", [node.tensor(0)], {"shape": [int(d) for d in shape]})


@converter("Identity", "Dropout")
def identity(node: Node) -> None:
    if node.op_type == "Dropout":
        runtime = node.opset >= 12 and (computed(node, 1) or computed(node, 2))
        if not runtime:
            _check_inference_dropout(node)
        if runtime or (len(node.outputs) > 1 and node.outputs[1]):
            # The engine's Dropout gives the mask and checks, on every run,
            # that ratio and training_mode drop nothing.
            inputs = [node.tensor(0)]
            if node.opset >= 12:
                inputs += [node.tensor(i) if node.has_input(i) else "" for i in (1, 2)]
            while inputs[-1] == "":
                inputs.pop()
            with_mask = len(node.outputs) > 1 and bool(node.outputs[1])
            node.outputs = node.outputs[:2 if with_mask else 1]
            node.emit_out("Dropout", inputs)
            return
        node.outputs = node.outputs[:1]
    node.emit_out("Identity", [node.tensor(0)])


def _check_inference_dropout(node: Node) -> None:
    """Dropout is an identity at inference only; a training-mode Dropout
    (opset 12's third input) drops values at random and is refused."""
    if node.opset < 12 or not node.has_input(2):
        if int(node.attr("is_test", 1)) == 0 and node.opset < 7:
            raise node.fail("Dropout with is_test=0 (training mode) cannot be run by an "
                            "inference engine")
        return
    if not node.is_const(2):
        raise node.fail("Dropout's training_mode is a computed tensor; only inference "
                        "(training_mode false) can be run")
    if bool(np.asarray(node.const(2, "training_mode")).reshape(-1)[0]):
        raise node.fail("Dropout with training_mode true drops values at random; only "
                        "inference (training_mode false) can be run")


# ONNX element types Cast can convert to, by the name of the engine's Cast
# type. The engine keeps the values as float32, each exactly what the type
# holds (mace/ops/ref/cast.h); float and double leave the values as they are.
# To bfloat16 the float32 is truncated, as ONNX's reference implementation
# and its node tests do (ONNX Runtime rounds to nearest even instead; the
# spec leaves it open); the other narrow types round to nearest even.
CAST_TYPES = {1: "FLOAT32", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 6: "INT32",
              7: "INT64", 9: "BOOL", 10: "FLOAT16", 11: "DOUBLE", 12: "UINT32",
              13: "UINT64", 16: "BFLOAT16", 17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ",
              19: "FLOAT8E5M2", 20: "FLOAT8E5M2FNUZ", 21: "UINT4", 22: "INT4"}


def emit_cast(node: Node, source: str, to: int, saturate: int = 1) -> None:
    """This node's output: `source` converted to ONNX element type `to`."""
    if to not in CAST_TYPES:
        kind = {8: "string", 14: "complex64", 15: "complex128"}.get(to, f"type {to}")
        raise node.fail(f"Cast to {kind} is not supported; MACE tensors hold numbers")
    if to in (1, 11):
        node.emit_out("Identity", [source])
    else:
        args = {"to": CAST_TYPES[to]}
        if to in (17, 18, 19, 20):
            args["saturate"] = int(bool(saturate))
        if to == 16:
            args["truncate"] = 1
        node.emit_out("Cast", [source], args)


@converter("Cast")
def cast(node: Node) -> None:
    emit_cast(node, node.tensor(0), int(node.attr("to")), int(node.attr("saturate", 1)))


@converter("Flatten")
def flatten(node: Node) -> None:
    shape = node.shape(0)
    axis = int(node.attr("axis", 1))
    axis = axis + len(shape) if axis < 0 else axis
    if not 0 <= axis <= len(shape):
        raise node.fail(f"axis {node.attr('axis')} is out of range for rank {len(shape)}")
    _reshape(node, [int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))])


@converter("Reshape")
def reshape(node: Node) -> None:
    shape = node.shape(0)
    if node.opset >= 5 and computed(node, 1):
        _reshape_computed(node)
        return
    target = [int(d) for d in (node.const(1, "shape") if node.opset >= 5
                               else node.attr("shape"))]
    allow_zero = int(node.attr("allowzero", 0))
    resolved = [shape[i] if d == 0 and not allow_zero else d for i, d in enumerate(target)]
    if resolved.count(-1) > 1:
        raise node.fail(f"shape {target} has more than one -1")
    if -1 in resolved:
        known = int(np.prod([d for d in resolved if d != -1]))
        resolved[resolved.index(-1)] = int(np.prod(shape)) // max(known, 1)
    if int(np.prod(resolved)) != int(np.prod(shape)):
        raise node.fail(f"cannot reshape {list(shape)} to {target}")
    _reshape(node, resolved)


def _reshape_computed(node: Node) -> None:
    """Reshape to a shape computed at run time: the engine's Reshape reads
    it on every run and checks it gives the shape the model declares. With
    allowzero=1 a 0 in that shape is a dimension of size 0 (allow_zero)."""
    planned = planned_shape(node, "the target shape")
    allow_zero = int(node.attr("allowzero", 0))
    if len(node.shape(1)) != 1 or node.shape(1)[0] != len(planned):
        raise node.fail(f"the shape input has shape {list(node.shape(1))} but the declared "
                        f"output shape {list(planned)} has rank {len(planned)}")
    if int(np.prod(planned)) != int(np.prod(node.shape(0))):
        raise node.fail(f"cannot reshape {list(node.shape(0))} to the declared output shape "
                        f"{list(planned)}")
    args = {"shape": [int(d) for d in planned]}
    if allow_zero:
        args["allow_zero"] = 1
    elif 0 in planned:
        raise node.fail(f"the declared output shape {list(planned)} has a 0, which a shape "
                        "computed at run time copies from the input unless allowzero=1")
    node.emit_out("Reshape", [node.tensor(0), node.tensor(1)], args, planned=[planned])


def _axes(node: Node, index: int) -> list[int]:
    if node.opset >= 13 and node.has_input(index):
        return [int(a) for a in node.const(index, "axes")]
    return node.ints("axes")


def _squeeze_computed(node: Node) -> bool:
    """Squeeze or Unsqueeze with axes computed at run time: the engine's
    Squeeze reads them on every run and checks they give the shape the
    model declares. False when the axes are not computed."""
    if node.opset < 13 or not computed(node, 1):
        return False
    planned = planned_shape(node, "axes")
    if int(np.prod(planned)) != int(np.prod(node.shape(0))):
        raise node.fail(f"the declared output shape {list(planned)} does not hold the "
                        f"elements of the input {list(node.shape(0))}")
    args = {"unsqueeze": 1} if node.op_type == "Unsqueeze" else {}
    node.emit_out("Squeeze", [node.tensor(0), node.tensor(1)], args, planned=[planned])
    return True


@converter("Squeeze")
def squeeze(node: Node) -> None:
    if _squeeze_computed(node):
        return
    shape = node.shape(0)
    axes = {normalize_axis(node, a, len(shape)) for a in _axes(node, 1)}
    if not axes:
        axes = {i for i, d in enumerate(shape) if d == 1}
    if any(shape[a] != 1 for a in axes):
        raise node.fail(f"cannot squeeze axes {sorted(axes)} of {list(shape)}")
    _reshape(node, [d for i, d in enumerate(shape) if i not in axes] or [1])


@converter("Unsqueeze")
def unsqueeze(node: Node) -> None:
    if _squeeze_computed(node):
        return
    shape = list(node.shape(0))
    rank = len(shape) + len(_axes(node, 1))
    for axis in sorted(normalize_axis(node, a, rank) for a in _axes(node, 1)):
        shape.insert(axis, 1)
    _reshape(node, shape)


@converter("Transpose")
def transpose(node: Node) -> None:
    rank = node.rank(0)
    perm = node.ints("perm") or list(reversed(range(rank)))
    node.emit_out("Transpose", [node.tensor(0)], {TRANSPOSE_PERM: perm})


@converter("Concat")
def concat(node: Node) -> None:
    rank = node.rank(0)
    axis = normalize_axis(node, int(node.attr("axis", 1)), rank)
    inputs = [node.tensor(i) for i in range(len(node.inputs)) if node.has_input(i)
              and 0 not in node.shape(i)]
    node.emit_out("Concat", inputs, {"axis": axis})


@converter("Split")
def split(node: Node) -> None:
    shape = node.shape(0)
    axis = normalize_axis(node, int(node.attr("axis", 0)), len(shape))
    if node.opset >= 13 and computed(node, 1):
        _split_computed(node, axis)
        return
    if node.opset >= 13 and node.has_input(1):
        sizes = [int(s) for s in node.const(1, "split")]
    else:
        sizes = node.ints("split")
    count = len(node.outputs)
    if not sizes:
        parts = int(node.attr("num_outputs", count))
        chunk = -(-shape[axis] // parts)
        sizes = [min(chunk, shape[axis] - chunk * i) for i in range(parts)]
    if sum(sizes) != shape[axis] or len(sizes) != count:
        raise node.fail(f"split sizes {sizes} do not cover axis {axis} of {list(shape)} "
                        f"in {count} outputs")
    node.emit("Split", [node.tensor(0)], {"axis": axis, "split": sizes}, outputs=node.outputs)


def _split_computed(node: Node, axis: int) -> None:
    """Split with sizes computed at run time: the outputs are planned for
    the shapes the model declares, and the engine's Split checks on every
    run that the sizes input gives them."""
    shape = list(node.shape(0))
    planned = [planned_shape(node, "split (the sizes)", i) for i in range(len(node.outputs))]
    sizes = []
    for out in planned:
        if len(out) != len(shape) or any(d != s for i, (d, s) in enumerate(zip(out, shape))
                                         if i != axis):
            raise node.fail(f"declared output shape {list(out)} is not a piece of the input "
                            f"{shape} along axis {axis}")
        sizes.append(int(out[axis]))
    if sum(sizes) != shape[axis] or list(node.shape(1)) != [len(sizes)]:
        raise node.fail(f"declared output shapes {[list(p) for p in planned]} do not cover "
                        f"axis {axis} of {shape} with {list(node.shape(1))} sizes")
    node.emit("Split", [node.tensor(0), node.tensor(1)], {"axis": axis, "split": sizes},
              outputs=node.outputs, planned=planned)


@converter("Slice")
def slice_(node: Node) -> None:
    rank = node.rank(0)
    if node.opset >= 10 and any(computed(node, i) for i in range(1, 5)):
        _slice_computed(node)
        return
    if node.opset >= 10:
        starts = [int(v) for v in node.const(1, "starts")]
        ends = [int(v) for v in node.const(2, "ends")]
        axes = [int(v) for v in node.optional_const(3, "axes")] if node.has_input(3) \
            else list(range(len(starts)))
        steps = [int(v) for v in node.optional_const(4, "steps")] if node.has_input(4) \
            else [1] * len(starts)
    else:
        starts, ends = node.ints("starts"), node.ints("ends")
        axes = node.ints("axes") or list(range(len(starts)))
        steps = [1] * len(starts)
    if 0 in steps:
        raise node.fail("slice step 0 is invalid")
    axes = [normalize_axis(node, a, rank) for a in axes]
    bound = 2 ** 31 - 1
    starts = [max(min(v, bound), -bound) for v in starts]
    ends = [max(min(v, bound), -bound) for v in ends]
    node.emit_out("Slice", [node.tensor(0)],
                  {"starts": starts, "ends": ends, "axes": axes, "steps": steps})


def _slice_computed(node: Node) -> None:
    """Slice with bounds computed at run time: the engine's Slice reads
    starts, ends, axes and steps on every run and checks they select the
    shape the model declares."""
    planned = node.graph.declared_shapes.get(node.outputs[0]) or _slice_extent(node)
    if planned is None:
        planned = planned_shape(node, "a bound (starts, ends, axes or steps)")
    if len(planned) != node.rank(0):
        raise node.fail(f"the declared output shape {list(planned)} does not have the rank "
                        f"of the data input {list(node.shape(0))}")
    inputs = [node.tensor(0)]
    count = None
    for index in range(1, 5):
        if not node.has_input(index):
            inputs.append("")
            continue
        shape = node.shape(index)
        if len(shape) != 1 or (count is not None and shape[0] != count):
            raise node.fail(f"input {index} has shape {list(shape)}; starts, ends, axes and "
                            "steps must be 1-D of one length")
        count = shape[0]
        inputs.append(node.tensor(index))
    while inputs[-1] == "":
        inputs.pop()
    node.emit_out("Slice", inputs, planned=[planned])


# Ops whose output holds their first input's values, reshaped at most.
_VALUE_PRESERVING = ("Reshape", "Squeeze", "ExpandDims", "Identity")


def _offset_from_root(graph, name: str) -> tuple[str, float]:
    """(root, c) such that tensor `name` equals tensor `root` + c element by
    element, following reshapes and additions or subtractions of a constant
    scalar back through the ops converted so far."""
    producers = {out: op for op in graph.ops for out in op.outputs}
    offset = 0.0
    while name in producers:
        op = producers[name]
        if op.type in _VALUE_PRESERVING and op.inputs:
            name = op.inputs[0]
            continue
        args = op.args
        if (op.type == "Eltwise" and len(op.inputs) == 1 and "scalar_input" in args
                and int(args.get("scalar_input_index", 1)) == 1
                and int(args.get("type", -1)) in (0, 1)
                and args.get("activation", "NOOP") == "NOOP"):
            scalar = float(args["scalar_input"])
            offset += scalar if int(args["type"]) == 0 else -scalar
            name = op.inputs[0]
            continue
        break
    return name, offset


def _slice_extent(node: Node):
    """The output shape of a Slice whose starts and ends are computed but
    differ by a constant (ends = starts + c, as in a loop body slicing
    element i to i + c), with constant axes and steps: c / step elements
    on each sliced axis when the window lies inside the data. The engine
    plans memory for that and refuses a run whose bounds select anything
    else (a window that runs off the data). None when it cannot be told."""
    if not (computed(node, 1) and computed(node, 2)):
        return None
    if any(computed(node, i) for i in (3, 4)):
        return None
    shape = list(node.shape(0))
    count = node.shape(1)
    if len(count) != 1 or tuple(node.shape(2)) != tuple(count):
        return None
    count = count[0]
    axes = [int(v) for v in node.optional_const(3, "axes")] if node.has_input(3) \
        else list(range(count))
    steps = [int(v) for v in node.optional_const(4, "steps")] if node.has_input(4) \
        else [1] * count
    if len(axes) != count or len(steps) != count:
        return None
    start_root, start_offset = _offset_from_root(node.graph, node.inputs[1])
    end_root, end_offset = _offset_from_root(node.graph, node.inputs[2])
    if start_root != end_root:
        return None
    span = end_offset - start_offset
    if span != int(span) or span <= 0 or any(step <= 0 for step in steps):
        return None
    for axis, step in zip(axes, steps):
        axis = normalize_axis(node, axis, len(shape))
        shape[axis] = min(-(-int(span) // step), shape[axis])
    return tuple(shape)


@converter("Pad")
def pad(node: Node) -> None:
    rank = node.rank(0)
    if node.opset >= 11 and any(computed(node, i) for i in (1, 2, 3)):
        _pad_computed(node)
        return
    if node.opset >= 11:
        pads = [int(p) for p in node.const(1, "pads")]
        value = node.optional_const(2, "constant_value")
        value = 0.0 if value is None else float(value.reshape(-1)[0])
        if node.has_input(3):
            axes = [normalize_axis(node, int(a), rank) for a in node.const(3, "axes")]
            full = [0] * (2 * rank)
            for i, axis in enumerate(axes):
                full[axis], full[axis + rank] = pads[i], pads[i + len(axes)]
            pads = full
    else:
        pads = node.ints("pads")
        value = float(node.attr("value", 0.0))
    if len(pads) != 2 * rank:
        raise node.fail(f"pads {pads} need {2 * rank} values")
    if min(pads) < 0:
        raise node.fail(f"negative pads {pads} (cropping) are not supported")
    mode = node.attr("mode", "constant")
    if mode == "wrap":
        _wrap_pad(node, pads)
        return
    modes = {"constant": 0, "reflect": 1, "edge": 3}
    if mode not in modes:
        raise node.fail(f"pad mode '{mode}' is not supported")
    amounts = []
    for axis in range(rank):
        amounts += [pads[axis], pads[axis + rank]]
    args = {PAD_AMOUNTS: amounts}
    if modes[mode]:
        args["pad_type"] = modes[mode]
    elif value:
        args["constant_value"] = value
    node.emit_out("Pad", [node.tensor(0)], args)


def _wrap_pad(node: Node, pads: list[int]) -> None:
    """Pad mode 'wrap' (the tensor continued periodically), axis by axis:
    the last pads_begin and the first pads_end slices of the axis
    concatenated around it. A pad longer than the axis repeats it whole."""
    shape = list(node.shape(0))
    rank = len(shape)
    source = node.tensor(0)
    for axis in range(rank):
        before, after, size = pads[axis], pads[axis + rank], shape[axis]
        if not before and not after:
            continue
        if size == 0:
            raise node.fail(f"axis {axis} has no elements to wrap around")
        pieces = []
        for start, count in ((-before % size, before), (None, None), (0, after)):
            if start is None:
                pieces.append(source)
                continue
            while count > 0:
                take = min(count, size - start)
                pieces.append(node.emit("Slice", [source], {
                    "starts": [start], "ends": [start + take], "axes": [axis],
                    "steps": [1]}).outputs[0])
                count -= take
                start = 0
        source = node.emit("Concat", pieces, {"axis": axis}).outputs[0]
        shape[axis] += before + after
    node.emit_out("Identity", [source])


def _pad_computed(node: Node) -> None:
    """Pad with pads, the constant value or axes computed at run time: the
    engine's Pad reads them as inputs (pads in ONNX's order) on every run
    and checks the pads give the shape the model declares."""
    mode = node.attr("mode", "constant")
    modes = {"constant": 0, "reflect": 1, "edge": 3, "wrap": 4}
    if mode not in modes:
        raise node.fail(f"pad mode '{mode}' is not supported")
    run_time = False
    if (computed(node, 1) or computed(node, 3)) and declared_shape(node) is None:
        # No declared shape: the engine takes it from the pads on every run.
        run_time = True
        planned = (0,) * node.rank(0)
    elif computed(node, 1) or computed(node, 3):
        planned = planned_shape(node, "pads (or axes)")
        shape = node.shape(0)
        if len(planned) != len(shape) or any(p < d for p, d in zip(planned, shape)):
            raise node.fail(f"the declared output shape {list(planned)} is not the data input "
                            f"{list(shape)} padded; negative pads (cropping) are not supported")
    else:
        # Only the constant value is computed: the shape is known here.
        rank = node.rank(0)
        pads = [int(p) for p in node.const(1, "pads")]
        axes = [normalize_axis(node, int(a), rank) for a in node.const(3, "axes")] \
            if node.has_input(3) else list(range(rank))
        if len(pads) != 2 * len(axes) or min(pads, default=0) < 0:
            raise node.fail(f"pads {pads} must be two non-negative values per axis of {axes}")
        planned = list(node.shape(0))
        for i, axis in enumerate(axes):
            planned[axis] += pads[i] + pads[i + len(axes)]
        planned = tuple(planned)
    inputs = [node.tensor(0)]
    for index, what in ((1, "pads"), (2, "constant_value"), (3, "axes")):
        if not node.has_input(index):
            inputs.append("")
            continue
        if node.known(index):
            value = node.const(index, what)
            if what == "constant_value" and value.size != 1:
                raise node.fail(f"constant_value has {value.size} values; it must be one")
            if what != "constant_value":
                value = np.asarray(value, dtype=np.int64).reshape(-1).astype(np.int32)
            else:
                value = np.asarray(value, dtype=np.float32).reshape(1)
            inputs.append(node.weight(node.inputs[index], value))
        else:
            inputs.append(node.tensor(index))
    while inputs[-1] == "":
        inputs.pop()
    args = {"pad_type": modes[mode]} if modes[mode] else {}
    if not run_time:
        node.emit_out("Pad", inputs, args, planned=[planned])
        return
    # The output is planned empty and sized at run time (the engine's Pad
    # then has no output_shape); its shape, for an ONNX Shape of it, is the
    # input's plus the pads, when the axes are known here.
    output = node.outputs[0]
    node.graph.run_time_shaped.add(output)
    node.emit_out("Pad", inputs, args, planned=[planned])
    if not computed(node, 3):
        rank = node.rank(0)
        axes = [normalize_axis(node, int(a), rank) for a in node.const(3, "axes")] \
            if node.has_input(3) else list(range(rank))
        node.graph.run_time_shapes[output] = \
            lambda reader: _padded_shape(reader, inputs[1], node.shape(0), axes)


def _padded_shape(node: Node, pads: str, shape: tuple[int, ...], axes: list[int]) -> str:
    """Emits, for `node`, the shape of `shape` padded by the 1-D tensor
    `pads` (all leading pads of `axes`, then all trailing ones), as a
    float32 vector; returns its name."""
    count = len(axes)
    halves = [node.emit("Slice", [pads], {"starts": [start], "ends": [start + count],
                                          "axes": [0], "steps": [1]}).outputs[0]
              for start in (0, count)]
    grow = node.emit("Eltwise", halves, {"type": 0}).outputs[0]
    if axes != list(range(len(shape))):
        # Each dimension takes its axis's growth, or the 0 appended.
        zero = node.weight(f"{node.name}_no_pad", np.zeros([1], np.float32))
        grow = node.emit("Concat", [grow, zero], {"axis": 0}).outputs[0]
        index = [axes.index(d) if d in axes else count for d in range(len(shape))]
        grow = node.emit("Gather", [grow, node.weight(f"{node.name}_pad_axes",
                                                      np.array(index, np.float32))],
                         {"axis": 0}).outputs[0]
    base = node.weight(f"{node.name}_unpadded_shape", np.array(shape, np.float32))
    return node.emit("Eltwise", [base, grow], {"type": 0}).outputs[0]


@converter("Softmax", "LogSoftmax")
def softmax(node: Node) -> None:
    shape = node.shape(0)
    rank = len(shape)
    axis = normalize_axis(node, int(node.attr("axis", -1 if node.opset >= 13 else 1)), rank)
    args = {"use_log": 1} if node.op_type == "LogSoftmax" else {}
    if node.opset >= 13 or axis == rank - 1:
        node.emit_out("Softmax", [node.tensor(0)], dict(args, axis=axis))
        return
    # Before opset 13 Softmax flattens to 2D at `axis` and normalizes rows.
    rows = [int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))]
    flat = node.emit("Reshape", [node.tensor(0)], {"shape": rows}).outputs[0]
    normed = node.emit("Softmax", [flat], dict(args, axis=1)).outputs[0]
    node.emit_out("Reshape", [normed], {"shape": list(shape)})


@converter("DepthToSpace", "SpaceToDepth")
def depth_space(node: Node) -> None:
    spatial_2d(node)
    args = {"block_size": int(node.attr("blocksize"))}
    mode = node.attr("mode", "DCR")
    if mode != "DCR":
        args["mode"] = mode
    node.emit_out(node.op_type, [node.tensor(0)], args)


_REDUCE_TYPES = {"ReduceMean": 0, "ReduceMin": 1, "ReduceMax": 2, "ReduceProd": 3,
                 "ReduceSum": 4}


@converter(*_REDUCE_TYPES)
def reduce(node: Node) -> None:
    axes_as_input = node.opset >= 18 or (node.op_type == "ReduceSum" and node.opset >= 13)
    if axes_as_input and computed(node, 1):
        _reduce_computed(node)
        return
    axes = _reduce_axes(node, axes_as_input)
    if axes is None:
        node.emit_out("Identity", [node.tensor(0)])
        return
    keep = int(node.attr("keepdims", 1))
    node.emit_out("Reduce", [node.tensor(0)], {
        "reduce_type": _REDUCE_TYPES[node.op_type], "axis": axes, "keepdims": keep})


def _reduce_axes(node: Node, axes_as_input: bool) -> list[int] | None:
    """The sorted axes a Reduce node reduces over, or None when it reduces
    nothing (empty axes with noop_with_empty_axes)."""
    rank = node.rank(0)
    if axes_as_input:
        axes = [int(a) for a in node.optional_const(1, "axes")] \
            if node.optional_const(1, "axes") is not None else []
    else:
        axes = node.ints("axes")
    if not axes and node.attr("noop_with_empty_axes", 0):
        return None
    return sorted(normalize_axis(node, a, rank) for a in axes) or list(range(rank))


# Reductions that are a sum between element-wise steps (Eltwise ABS = 7,
# PROD = 2, POW = 9; Unary LOG): what comes before the sum, and after.
_SUM_REDUCTIONS = ("ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
                   "ReduceLogSumExp")


@converter(*_SUM_REDUCTIONS)
def reduce_composite(node: Node) -> None:
    """ReduceL1 = sum |x|, ReduceSumSquare = sum x^2, ReduceL2 = its square
    root, ReduceLogSum = log(sum x), ReduceLogSumExp = m + log(sum exp(x - m))
    with m the maximum over the same axes (so exp cannot overflow)."""
    axes_as_input = node.opset >= 18
    run_time_axes = axes_as_input and computed(node, 1)
    keep = int(node.attr("keepdims", 1))
    x = node.tensor(0)
    declared = None     # the keepdims 0 shape when the steps run at the kept one
    if run_time_axes:
        # As _reduce_computed: the Reduce reads the axes on every run and
        # checks they give the declared shape.
        axes: list[int] | None = []
        planned = planned_shape(node, "axes")
        if keep and len(planned) != node.rank(0):
            raise node.fail(f"the declared output shape {list(planned)} does not have the "
                            f"rank of the data input {list(node.shape(0))} although keepdims "
                            "is 1")
        if node.op_type == "ReduceLogSumExp" and not keep:
            # The maximum is subtracted with keepdims, so the steps run at
            # the kept shape and a Reshape drops the ones.
            declared, planned, keep = planned, _kept_shape(node, planned), 1
    else:
        axes = _reduce_axes(node, axes_as_input)

    def reduced(source: str, reduce_type: int, keepdims: int, **kw) -> str:
        if axes is None:
            return source
        if run_time_axes:
            args = {"reduce_type": reduce_type, "keepdims": keepdims}
            if node.attr("noop_with_empty_axes", 0):
                args["noop_with_empty_axes"] = 1
            return node.emit("Reduce", [source, node.tensor(1)], args,
                             planned=[planned], **kw).outputs[0]
        return node.emit("Reduce", [source], {"reduce_type": reduce_type, "axis": axes,
                                              "keepdims": keepdims}, **kw).outputs[0]
    final = {"outputs": node.outputs}
    if node.op_type == "ReduceL1":
        reduced(node.emit("Eltwise", [x], {"type": 7}).outputs[0], 4, keep, **final)
    elif node.op_type in ("ReduceSumSquare", "ReduceL2"):
        square = node.emit("Eltwise", [x, x], {"type": 2}).outputs[0]
        if node.op_type == "ReduceSumSquare":
            reduced(square, 4, keep, **final)
        else:
            total = reduced(square, 4, keep)
            node.emit_out("Eltwise", [total], {"type": 9, "scalar_input": 0.5})
    elif node.op_type == "ReduceLogSum":
        node.emit_out("Unary", [reduced(x, 4, keep)], {"type": "LOG"})
    else:
        if axes is None:    # log(exp(x)) element by element
            node.emit_out("Identity", [x])
            return
        peak = reduced(x, 2, 1)
        shifted = node.emit("Eltwise", [x, peak], {"type": 1}).outputs[0]
        exp = node.emit("Unary", [shifted], {"type": "EXP"}).outputs[0]
        log = node.emit("Unary", [reduced(exp, 4, keep)], {"type": "LOG"}).outputs[0]
        if not keep:
            peak = reduced(x, 2, 0)
        if declared is not None:
            total = node.emit("Eltwise", [log, peak], {"type": 0}).outputs[0]
            node.emit_out("Reshape", [total], {"shape": list(declared)})
            return
        node.emit_out("Eltwise", [log, peak], {"type": 0})


def _kept_shape(node: Node, reduced: tuple[int, ...]) -> tuple[int, ...]:
    """The keepdims shape of a reduction of input 0 to `reduced` (its
    keepdims 0 shape): input 0's shape with ones at the first axes whose
    removal leaves `reduced`. Where other axes would leave it too (equal
    lengths), the engine's Reduce checks on every run that the run-time
    axes give this shape and refuses a run whose axes do not."""
    shape = tuple(node.shape(0))
    for axes in itertools.combinations(range(len(shape)), len(shape) - len(reduced)):
        if tuple(d for i, d in enumerate(shape) if i not in axes) == tuple(reduced):
            return tuple(1 if i in axes else d for i, d in enumerate(shape))
    raise node.fail(f"the declared output shape {list(reduced)} is not the input shape "
                    f"{list(shape)} with some axes removed, as keepdims 0 gives")


def _reduce_computed(node: Node) -> None:
    """Reduce over axes computed at run time: the engine's Reduce reads
    them on every run and checks they give the shape the model declares."""
    planned = planned_shape(node, "axes")
    keep = int(node.attr("keepdims", 1))
    if keep and len(planned) != node.rank(0):
        raise node.fail(f"the declared output shape {list(planned)} does not have the rank "
                        f"of the data input {list(node.shape(0))} although keepdims is 1")
    if len(node.shape(1)) != 1:
        raise node.fail(f"the axes input has shape {list(node.shape(1))}; it must be 1-D")
    args = {"reduce_type": _REDUCE_TYPES[node.op_type], "keepdims": keep}
    if node.attr("noop_with_empty_axes", 0):
        args["noop_with_empty_axes"] = 1
    node.emit_out("Reduce", [node.tensor(0), node.tensor(1)], args, planned=[planned])


@converter("ArgMax")
def arg_max(node: Node) -> None:
    rank = node.rank(0)
    args = {"axis": normalize_axis(node, int(node.attr("axis", 0)), rank),
            "keepdims": int(node.attr("keepdims", 1))}
    if node.attr("select_last_index", 0):
        args["select_last_index"] = 1
    node.emit_out("ArgMax", [node.tensor(0)], args)


@converter("Gather")
def gather(node: Node) -> None:
    """Gather of constant indices that pick one index or a contiguous run,
    as a Slice (plus a Reshape for a scalar index)."""
    shape = node.shape(0)
    axis = normalize_axis(node, int(node.attr("axis", 0)), len(shape))
    indices = node.const(1, "indices").astype(np.int64)
    flat = np.where(indices < 0, indices + shape[axis], indices).reshape(-1)
    if indices.ndim > 1 or flat.size == 0 or np.any(np.diff(flat) != 1):
        raise node.fail("Gather of a computed tensor is supported only for one index or a "
                        "contiguous run of constant indices")
    args = {"starts": [int(flat[0])], "ends": [int(flat[-1]) + 1], "axes": [axis],
            "steps": [1]}
    if indices.ndim == 1:
        node.emit_out("Slice", [node.tensor(0)], args)
        return
    piece = node.emit("Slice", [node.tensor(0)], args).outputs[0]
    out_shape = [d for i, d in enumerate(shape) if i != axis] or [1]
    node.emit_out("Reshape", [piece], {"shape": out_shape})


# What ResizeBilinear and ResizeNearestNeighbor cover; other static
# Resize nodes become the general Resize op.
_PLANE_COORDINATES = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric")


def _present(node: Node, index: int) -> bool:
    """Whether optional input `index` holds values (an empty tensor stands
    for an absent input in ONNX's Resize)."""
    return node.has_input(index) and 0 not in node.shape(index)


def _plane_resize_covers(node: Node) -> bool:
    """Whether the H x W ops of rank-4 NCHW tensors convert this Resize
    exactly (they keep the behaviours their other users rely on)."""
    shape = node.shape(0)
    coordinates = node.attr("coordinate_transformation_mode", "half_pixel")
    axes = [normalize_axis(node, int(a), len(shape)) for a in node.ints("axes")]
    if len(shape) != 4 or node.attr("mode", "nearest") not in ("nearest", "linear") or \
            node.attr("antialias", 0) or axes not in ([], [2, 3]) or \
            node.attr("keep_aspect_ratio_policy", "stretch") != "stretch" or \
            coordinates not in _PLANE_COORDINATES:
        return False
    if _present(node, 3):
        if computed(node, 3):
            return list(planned_shape(node, "sizes")[:2]) == list(shape[:2])
        return axes == [2, 3] or [int(v) for v in node.const(3).reshape(-1)[:2]] == \
            list(shape[:2])
    if not _present(node, 2):
        return False
    if computed(node, 2):
        # align_corners divides by in * scale - 1 in ONNX, by the floored size
        # in ResizeBilinear; with run-time scales that cannot be checked.
        return coordinates != "align_corners" and \
            list(planned_shape(node, "scales")[:2]) == list(shape[:2])
    scales = [float(v) for v in node.const(2).reshape(-1)]
    if not axes and scales[:2] != [1.0, 1.0]:
        return False
    return coordinates != "align_corners" or \
        all(float(np.float32(d) * np.float32(s)) == np.floor(float(np.float32(d) * np.float32(s)))
            for d, s in zip(shape[2:], scales[-2:]))


def _general_resize(node: Node) -> bool:
    """Converts a Resize (opset 11 and later) to the general Resize op,
    unless the H x W ops cover it; returns False to leave it to them. roi,
    scales and sizes become arguments when constant, inputs 1 to 3 read at
    run time otherwise (the output shape must then be declared)."""
    if node.op_type != "Resize" or node.opset < 11 or _plane_resize_covers(node):
        return False
    if _present(node, 2) == _present(node, 3):
        raise node.fail("needs exactly one of scales and sizes")
    coordinates = node.attr("coordinate_transformation_mode", "half_pixel")
    mode = node.attr("mode", "nearest")
    args: dict = {"mode": mode,
                  "coordinate_transformation_mode": coordinates,
                  "nearest_mode": node.attr("nearest_mode", "round_prefer_floor"),
                  "cubic_coeff_a": float(node.attr("cubic_coeff_a", -0.75)),
                  "exclude_outside": int(node.attr("exclude_outside", 0)),
                  # ONNX: antialias applies to linear and cubic only.
                  "antialias": int(node.attr("antialias", 0)) if mode != "nearest" else 0,
                  "extrapolation_value": float(node.attr("extrapolation_value", 0.0)),
                  "keep_aspect_ratio_policy": node.attr("keep_aspect_ratio_policy", "stretch")}
    rank = node.rank(0)
    args["axes"] = [normalize_axis(node, int(a), rank) for a in node.ints("axes")] or \
        list(range(rank))
    used = [coordinates == "tf_crop_and_resize", _present(node, 2), _present(node, 3)]
    if used[0] and not _present(node, 1):
        raise node.fail("tf_crop_and_resize needs roi")
    inputs = [node.tensor(0)]
    runtime = []
    for index, name in zip((1, 2, 3), ("roi", "scales", "sizes")):
        if not used[index - 1]:
            inputs.append("")
        elif computed(node, index):
            inputs.append(node.tensor(index))
            runtime.append(name)
        else:
            values = node.const(index, name).reshape(-1)
            args[name] = [int(v) for v in values] if name == "sizes" else \
                [float(v) for v in values]
            inputs.append("")
    while inputs[-1] == "":
        inputs.pop()
    planned = [planned_shape(node, " and ".join(runtime))] if runtime else None
    node.emit_out("Resize", inputs, args, planned=planned)
    return True


@converter("Resize", "Upsample")
def resize(node: Node) -> None:
    if _general_resize(node):
        return
    spatial_2d(node)
    shape = node.shape(0)
    mode = node.attr("mode", "nearest")
    runtime = None  # (MACE input index, source input index) read at run time
    if node.op_type == "Upsample" or node.opset < 11:
        if node.opset >= 9 and computed(node, 1):
            runtime, scales = (2, 1), None
        else:
            scales = node.attr("scales") if node.opset < 9 else node.const(1, "scales")
        sizes = None
        coordinates = "asymmetric"
    else:
        if computed(node, 3):
            runtime, scales, sizes = (1, 3), None, None
        elif computed(node, 2) and not (node.known(3) and node.const(3).size):
            runtime, scales, sizes = (2, 2), None, None
        else:
            scales = node.optional_const(2, "scales")
            sizes = node.optional_const(3, "sizes")
        coordinates = node.attr("coordinate_transformation_mode", "half_pixel")
        # `axes` [2, 3] (H then W) is what scales and sizes of two values
        # mean to the engine; any other order or set is refused.
        axes = [normalize_axis(node, int(a), len(shape)) for a in node.ints("axes")]
        if node.attr("antialias", 0) or axes not in ([], [2, 3]) \
                or node.attr("keep_aspect_ratio_policy", "stretch") != "stretch":
            raise node.fail("antialias, axes other than [2, 3] and keep_aspect_ratio_policy "
                            "are not supported")
        if axes and scales is not None and scales.size == 2:
            scales = np.concatenate([[1.0, 1.0], scales])
        if axes and sizes is not None and sizes.size == 2:
            sizes = np.concatenate([shape[:2], sizes])
    if coordinates not in ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"):
        raise node.fail(f"coordinate_transformation_mode '{coordinates}' is not supported")
    args: dict = {"coordinate_transformation_mode": coordinates}
    # align_corners maps x to x (in - 1) / (length - 1). With scales, ONNX
    # defines length as in * scale and ONNX Runtime as the floored output
    # size; they agree only when in * scale is whole.
    uneven = "align_corners with scales whose product with the input size is not whole " \
        "(ONNX and ONNX Runtime disagree there) is not supported"
    if coordinates == "align_corners" and runtime is not None and runtime[0] == 2:
        raise node.fail(f"{uneven}; with scales computed at run time it cannot be checked")
    if coordinates == "align_corners" and runtime is None and sizes is None and \
            any(float(np.float32(d) * np.float32(s)) != np.floor(float(np.float32(d) *
                                                                   np.float32(s)))
                for d, s in zip(shape[2:], [float(v) for v in scales][2:])):
        raise node.fail(uneven)
    inputs = [node.tensor(0)]
    planned = None
    if runtime is not None:
        # Scales or sizes computed at run time: the engine reads them as
        # input 1 (sizes) or 2 (scales) and checks they give the declared shape.
        planned = [planned_shape(node, "scales" if runtime[0] == 2 else "sizes")]
        if len(planned[0]) != 4 or list(planned[0][:2]) != list(shape[:2]):
            raise node.fail(f"the declared output shape {list(planned[0])} resizes more than "
                            f"H and W of {list(shape)}")
        if list(node.shape(runtime[1])) not in ([2], [4]):
            raise node.fail(f"the {'scales' if runtime[0] == 2 else 'sizes'} input has shape "
                            f"{list(node.shape(runtime[1]))}; it must be [4] (or [2])")
        inputs += [node.tensor(runtime[1]) if runtime[0] == 1 else "", node.tensor(runtime[1])]
        inputs = inputs[:runtime[0] + 1]
    elif sizes is not None:
        sizes = [int(v) for v in sizes]
        if sizes[:2] != list(shape[:2]):
            raise node.fail("only the spatial axes (H, W) can be resized")
        args["size"] = sizes[2:]
    else:
        scales = [float(v) for v in scales]
        if scales[:2] != [1.0, 1.0]:
            raise node.fail("only the spatial axes (H, W) can be resized")
        args["height_scale"], args["width_scale"] = scales[2], scales[3]
    if mode == "nearest":
        nearest = "floor" if node.op_type == "Upsample" or node.opset < 11 \
            else node.attr("nearest_mode", "round_prefer_floor")
        args["nearest_mode"] = nearest
        node.emit_out("ResizeNearestNeighbor", inputs, args, planned=planned)
    elif mode in ("linear", "bilinear"):
        node.emit_out("ResizeBilinear", inputs, args, planned=planned)
    else:
        raise node.fail(f"resize mode '{mode}' is not supported (nearest and linear are)")


@converter("CenterCropPad")
def center_crop_pad(node: Node) -> None:
    """Each listed axis cropped or padded with zeros to its target length,
    centered (the odd element goes to the end, as ONNX defines): a Slice,
    then a Pad. The targets come from the shape input, or, when it is
    computed, from the output shape the model declares."""
    shape = list(node.shape(0))
    rank = len(shape)
    axes = [normalize_axis(node, int(a), rank) for a in node.ints("axes", list(range(rank)))]
    if computed(node, 1):
        declared = node.graph.declared_shapes.get(node.outputs[0])
        if declared is None or len(declared) != rank:
            raise node.fail("the target shape is computed at run time and the model declares "
                            "no output shape of the input's rank")
        targets = [int(declared[a]) for a in axes]
    else:
        targets = [int(t) for t in node.const(1, "shape").reshape(-1)]
    if len(targets) != len(axes):
        raise node.fail(f"shape has {len(targets)} values for {len(axes)} axes")
    if any(t < 0 for t in targets):
        raise node.fail(f"target lengths {targets} must not be negative")
    starts, ends, crop_axes = [], [], []
    pads = [0] * (2 * rank)
    for axis, target in zip(axes, targets):
        size = shape[axis]
        if target < size:
            start = (size - target) // 2
            starts.append(start)
            ends.append(start + target)
            crop_axes.append(axis)
        elif target > size:
            pads[axis] = (target - size) // 2
            pads[axis + rank] = target - size - pads[axis]
    source = node.tensor(0)
    crop = {"starts": starts, "ends": ends, "axes": crop_axes, "steps": [1] * len(crop_axes)}
    if not any(pads):
        node.emit_out("Slice" if crop_axes else "Identity", [source], crop if crop_axes else {})
        return
    if crop_axes:
        source = node.emit("Slice", [source], crop).outputs[0]
    amounts = []
    for axis in range(rank):
        amounts += [pads[axis], pads[axis + rank]]
    node.emit_out("Pad", [source], {PAD_AMOUNTS: amounts})
