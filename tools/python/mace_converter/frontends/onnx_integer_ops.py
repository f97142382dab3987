"""ONNX bitwise ops of int32, int64, uint32 and uint64 in the engine's int32
Bitwise op, whose results can be beyond the integers float32 holds.

The engine computes them on int32 two's complement bits. That is exact for
every value the model's inputs and constants can bring in: the engine
refuses an input value beyond int32 (an int64 or uint64 one fed as int64),
and the converter refuses such a constant. And, Or, Xor and Not of
int32-range values stay in that range, as does And, Or and Xor of
non-negative values below 2^31; the Not of an unsigned value does not, so
it is refused.

The operands stay int32 from end to end: model inputs become int32 engine
inputs, and the results may go only to other bitwise ops or out of the
model. A model input read by any other op, or a result that another op
reads, is refused: the engine's other ops compute in float32.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto

from mace_converter.frontends.node import Node
from mace_converter.ir import INT32

# The ONNX element types this module takes.
WIDE_TYPES = frozenset({TensorProto.INT32, TensorProto.INT64, TensorProto.UINT32,
                        TensorProto.UINT64})
_BITWISE_OPS = frozenset({"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"})
# The "T" argument value that selects the engine's int32 kernel (DT_INT32).
_DT_INT32 = 4
_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1


def integer_bitwise(node: Node, kind: str) -> None:
    """Emits the int32 Bitwise op of type `kind` ("and", "or", "xor",
    "not"; the caller refuses "not" of an unsigned type) for `node`."""
    count = 1 if kind == "not" else 2
    inputs = [_operand(node, index) for index in range(count)]
    readers = _readers(node, node.outputs[0]) - _BITWISE_OPS
    if readers:
        raise node.fail(f"its integer result goes to {', '.join(sorted(readers))}, which "
                        "computes in float32; only bitwise ops and model outputs may read "
                        "the results of int32 to uint64 bitwise ops")
    node.emit_out("Bitwise", inputs, {"type": kind, "T": _DT_INT32})


def _operand(node: Node, index: int) -> str:
    """Input `index` as an int32 engine tensor."""
    name = node.inputs[index]
    if node.known(index):
        value = np.asarray(node.const(index, "operand"))
        if value.dtype.kind not in "iu" or (value.size and (
                int(value.min()) < _INT32_MIN or int(value.max()) > _INT32_MAX)):
            raise node.fail(f"constant operand '{name}' holds values beyond int32, which the "
                            "engine computes wide integers in")
        return node.weight(name, value.astype(np.int32))
    tensor = node.graph.tensors.get(name)
    if tensor is None:
        raise node.fail(f"input '{name}' is not produced by any earlier node")
    if name in node.graph.inputs and tensor.dtype != INT32:
        readers = _readers(node, name) - _BITWISE_OPS
        if readers:
            raise node.fail(f"model input '{name}' is also read by {', '.join(sorted(readers))}, "
                            "which computes in float32, while bitwise ops of its type run in "
                            "int32")
        tensor.dtype = INT32
    if tensor.dtype != INT32:
        raise node.fail(f"operand '{name}' is computed in float32 by other ops; int32 to "
                        "uint64 bitwise ops take model inputs, constants and other bitwise "
                        "ops' results")
    return name


def _readers(node: Node, name: str) -> set[str]:
    """The op types of the ONNX nodes of the graph that read `name`."""
    flow = getattr(node.graph, "onnx_nodes", None) or []
    return {op_type for op_type, inputs, _ in flow if name in inputs}
