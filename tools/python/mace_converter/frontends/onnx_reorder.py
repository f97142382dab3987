"""ONNX ops that move elements to computed places: ReverseSequence (a
GatherElements along the time axis at indices computed from the sequence
lengths) and MaxUnpool (a ScatterElements of the values into zeros at the
indices MaxPool returned); and BitwiseNot and BitShift, exact on the
integers the engine carries as float32.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import (computed, converter, normalize_axis,
                                                  planned_shape)
from mace_converter.frontends.onnx_integer_ops import integer_bitwise
from mace_converter.frontends.onnx_more import _compare, _value
from mace_converter.shape_rules import PAD_AMOUNTS

_SUM, _SUB, _PROD, _DIV, _MIN, _NEG, _POW = 0, 1, 2, 3, 4, 6, 9


@converter("ReverseSequence")
def reverse_sequence(node: Node) -> None:
    """out[t, b] = x[len_b - 1 - t, b] for t < len_b, else x[t, b]."""
    shape = list(node.shape(0))
    rank = len(shape)
    if rank < 2:
        raise node.fail(f"the input has shape {shape}; it must have rank 2 or more")
    time = normalize_axis(node, int(node.attr("time_axis", 0)), rank)
    batch = normalize_axis(node, int(node.attr("batch_axis", 1)), rank)
    if {time, batch} != {0, 1}:
        raise node.fail(f"time_axis {time} and batch_axis {batch} must be 0 and 1")
    if list(node.shape(1)) != [shape[batch]]:
        raise node.fail(f"sequence_lens has shape {list(node.shape(1))}; it must be "
                        f"[{shape[batch]}]")
    steps = [1] * rank
    steps[time] = shape[time]
    position = np.arange(shape[time], dtype=np.float32).reshape(steps)
    position = node.weight(f"{node.name}_position",
                           np.ascontiguousarray(np.broadcast_to(position, shape)))
    per_batch = [1] * rank
    per_batch[batch] = shape[batch]
    lengths = node.emit("Reshape", [_value(node, 1)], {"shape": per_batch}).outputs[0]
    inside = _compare(node, "less", position, lengths)
    back = node.emit("Eltwise", [lengths, position], {"type": _SUB}).outputs[0]
    back = node.emit("Eltwise", [back], {"type": _SUB, "scalar_input": 1.0,
                                         "scalar_input_index": 1}).outputs[0]
    index = node.emit("Where", [inside, back, position]).outputs[0]
    node.emit_out("GatherElements", [node.tensor(0), index], {"axis": time})


@converter("MaxUnpool")
def max_unpool(node: Node) -> None:
    """Zeros of the unpooled shape with each value written at its index,
    which counts over the whole output tensor (as MaxPool's Indices do)."""
    shape = list(node.shape(0))
    spatial = len(shape) - 2
    if spatial < 1:
        raise node.fail(f"the input has shape {shape}; it must be [N, C, D1, ...]")
    if list(node.shape(1)) != shape:
        raise node.fail(f"the indices have shape {list(node.shape(1))}, not the input's {shape}")
    kernel = node.ints("kernel_shape")
    strides = node.ints("strides") or [1] * spatial
    pads = node.ints("pads") or [0] * (2 * spatial)
    if len(kernel) != spatial or len(strides) != spatial or len(pads) != 2 * spatial:
        raise node.fail(f"kernel_shape {kernel}, strides {strides} and pads {pads} do not "
                        f"match {spatial} spatial axes")
    unpooled = shape[:2] + [(d - 1) * s + k - pads[i] - pads[i + spatial]
                            for i, (d, s, k) in enumerate(zip(shape[2:], strides, kernel))]
    checked = computed(node, 2)
    if checked:
        # Planned from the declared shape; the last Reshape reads
        # output_shape on every run and refuses one that differs.
        out = list(planned_shape(node, "output_shape"))
    elif node.has_input(2):
        out = [int(d) for d in node.const(2, "output_shape")]
    else:
        out = unpooled
    if len(out) != len(shape) or any(o < u for o, u in zip(out, unpooled)) or \
            out[:2] != shape[:2]:
        raise node.fail(f"output shape {out} is smaller than the unpooled shape {unpooled}")
    zeros = node.weight(f"{node.name}_zeros", np.zeros(int(np.prod(unpooled)), np.float32))
    values = node.emit("Reshape", [node.tensor(0)], {"shape": [-1]}).outputs[0]
    indices = node.emit("Reshape", [_value(node, 1)], {"shape": [-1]}).outputs[0]
    flat = node.emit("ScatterElements", [zeros, indices, values], {"axis": 0}).outputs[0]
    result = node.emit("Reshape", [flat], {"shape": unpooled}).outputs[0]
    if out != unpooled:   # an output_shape larger than the unpooled one pads at the end
        amounts = []
        for o, u in zip(out, unpooled):
            amounts += [0, o - u]
        result = node.emit("Pad", [result], {PAD_AMOUNTS: amounts}).outputs[0]
    if checked:
        node.emit_out("Reshape", [result, node.tensor(2)], {"shape": out}, planned=[tuple(out)])
    else:
        node.emit_out("Identity", [result])


_UNSIGNED_MAX = {TensorProto.UINT8: 255, TensorProto.UINT16: 65535,
                 TensorProto.UINT32: 2 ** 32 - 1, TensorProto.UINT64: 2 ** 64 - 1}
_SIGNED = {TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.INT64}


def _element_type(node: Node) -> int:
    graph = node.graph
    for name in (node.inputs[0], node.outputs[0]):
        for table in (getattr(graph, "onnx_input_types", {}),
                      getattr(graph, "onnx_value_types", {})):
            if name in table:
                return int(table[name])
    if node.is_const(0):
        from onnx import helper
        return helper.np_dtype_to_tensor_dtype(np.asarray(node.const(0)).dtype)
    raise node.fail(f"the element type of the input is not declared; {node.op_type} needs it")


@converter("BitwiseNot")
def bitwise_not(node: Node) -> None:
    """~x is -x - 1 for a signed type and max - x for an unsigned one:
    exact in float32 for the 8- and 16-bit types. int32 and int64 run in
    the engine's int32 Bitwise op (onnx_integer_ops)."""
    elem = _element_type(node)
    if elem in (TensorProto.INT32, TensorProto.INT64):
        integer_bitwise(node, "not")
        return
    x = _value(node, 0)
    if elem in _SIGNED:
        negated = node.emit("Eltwise", [x], {"type": _NEG}).outputs[0]
        node.emit_out("Eltwise", [negated], {"type": _SUB, "scalar_input": 1.0,
                                             "scalar_input_index": 1})
    elif elem in (TensorProto.UINT8, TensorProto.UINT16):
        node.emit_out("Eltwise", [x], {"type": _SUB, "scalar_input": float(_UNSIGNED_MAX[elem]),
                                       "scalar_input_index": 0})
    else:
        raise node.fail(f"BitwiseNot of ONNX element type {elem} is not supported; its results "
                        "are beyond the int32 the engine computes wide integers in (int8 to "
                        "int64, uint8 and uint16 are supported)")


_UNSIGNED_BITS = {TensorProto.UINT8: 8, TensorProto.UINT16: 16, TensorProto.UINT32: 32,
                  TensorProto.UINT64: 64}


@converter("BitShift")
def bit_shift(node: Node) -> None:
    """x << s is x * 2^s modulo 2^bits and x >> s is floor(x / 2^s), with s
    capped at bits (a longer shift gives 0 either way, and 2^s stays finite).
    Exact in float32: x < 2^24 (the engine refuses integer inputs beyond),
    multiplying or dividing by a power of two only moves the exponent, and
    fmod is exact."""
    elem = _element_type(node)
    if elem not in _UNSIGNED_BITS:
        raise node.fail(f"BitShift of ONNX element type {elem} is not supported; ONNX defines "
                        "it for uint8, uint16, uint32 and uint64")
    bits = _UNSIGNED_BITS[elem]
    direction = str(node.attr("direction", ""))
    if direction not in ("LEFT", "RIGHT"):
        raise node.fail(f"direction '{direction}' must be LEFT or RIGHT")
    x, shift = _value(node, 0), _value(node, 1)
    capped = node.emit("Eltwise", [shift], {"type": _MIN, "scalar_input": float(bits),
                                            "scalar_input_index": 1}).outputs[0]
    scale = node.emit("Eltwise", [capped], {"type": _POW, "scalar_input": 2.0,
                                            "scalar_input_index": 0}).outputs[0]
    if direction == "RIGHT":
        quotient = node.emit("Eltwise", [x, scale], {"type": _DIV}).outputs[0]
        node.emit_out("Unary", [quotient], {"type": "FLOOR"})
        return
    product = node.emit("Eltwise", [x, scale], {"type": _PROD}).outputs[0]
    modulus = node.weight(f"{node.name}_modulus", np.array([2.0 ** bits], np.float32))
    node.emit_out("Mod", [product, modulus])
