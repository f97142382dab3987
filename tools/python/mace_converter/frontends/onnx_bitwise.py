"""ONNX BitwiseAnd, BitwiseOr and BitwiseXor of 8- and 16-bit integers,
which the engine carries as float32.

Bit k of x is floor(x / 2^k) mod 2 (a floor modulo, so a negative x gives
its two's complement bits). The bits combine as a * b (and), a + b - a * b
(or) and |a - b| (xor), and the result is their sum weighted by 2^k. Every
step is exact in float32: dividing by a power of two only moves the
exponent, and every partial sum is an integer below 2^16 in magnitude.

The top bit of a signed 8- or 16-bit width weighs -2^(width - 1).

int32, int64, uint32 and uint64 run in the engine's int32 Bitwise op
instead (onnx_integer_ops), on operands that are model inputs, constants or
other such ops' results.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.frontends.onnx_integer_ops import WIDE_TYPES, integer_bitwise
from mace_converter.frontends.onnx_more import _value
from mace_converter.frontends.onnx_reorder import _element_type

_SUM, _SUB, _PROD, _ABS = 0, 1, 2, 7

# ONNX element type: (bits computed, signed).
_WIDTHS = {TensorProto.UINT8: (8, False), TensorProto.UINT16: (16, False),
           TensorProto.INT8: (8, True), TensorProto.INT16: (16, True)}


def _bit(node: Node, x: str, k: int, two: str) -> str:
    shifted = node.emit("Eltwise", [x], {"type": _PROD, "scalar_input": 2.0 ** -k}).outputs[0]
    whole = node.emit("Unary", [shifted], {"type": "FLOOR"}).outputs[0]
    return node.emit("Mod", [whole, two]).outputs[0]


def _combine(node: Node, a: str, b: str) -> str:
    both = node.emit("Eltwise", [a, b], {"type": _PROD}).outputs[0]
    if node.op_type == "BitwiseAnd":
        return both
    if node.op_type == "BitwiseOr":
        either = node.emit("Eltwise", [a, b], {"type": _SUM}).outputs[0]
        return node.emit("Eltwise", [either, both], {"type": _SUB}).outputs[0]
    difference = node.emit("Eltwise", [a, b], {"type": _SUB}).outputs[0]
    return node.emit("Eltwise", [difference], {"type": _ABS}).outputs[0]


@converter("BitwiseAnd", "BitwiseOr", "BitwiseXor")
def bitwise(node: Node) -> None:
    elem = _element_type(node)
    if elem in WIDE_TYPES:
        integer_bitwise(node, node.op_type[len("Bitwise"):].lower())
        return
    if elem not in _WIDTHS:
        raise node.fail(f"{node.op_type} of ONNX element type {elem} is not supported "
                        "(int8 to int64 and uint8 to uint64 are)")
    width, signed = _WIDTHS[elem]
    x, y = _value(node, 0), _value(node, 1)
    two = node.weight(f"{node.name}_two", np.array([2.0], np.float32))
    total = None
    for k in range(width):
        bit = _combine(node, _bit(node, x, k, two), _bit(node, y, k, two))
        weight = -(2.0 ** k) if signed and k == width - 1 else 2.0 ** k
        term = node.emit("Eltwise", [bit], {"type": _PROD, "scalar_input": weight}).outputs[0]
        if total is not None:
            term = node.emit("Eltwise", [total, term], {"type": _SUM}).outputs[0]
        total = term
    node.emit_out("Identity", [total])
