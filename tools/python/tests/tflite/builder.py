"""Writes small .tflite files with the flatbuffers builder and the tflite
package's generated schema, for models TensorFlow would not write:
malformed ones (the hostile input tests) and ops by hand."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union

import flatbuffers
import numpy as np
import tflite


@dataclass
class T:
    name: str
    shape: Sequence[int]
    buffer: int = 0
    dtype: int = 0               # TensorType: 0 float32
    # Sparse storage: (traversal order, block map, dimension records), each
    # record a dense size (int) or CSR (segments, indices).
    sparsity: Optional[tuple] = None


@dataclass
class Op:
    code: Union[int, str]        # a BuiltinOperator, or a custom op's name
    inputs: Sequence[int]
    outputs: Sequence[int]
    # (BuiltinOptions type, a function writing the options table), or None.
    options: Optional[tuple[int, Callable]] = None
    # A custom op's options, as raw bytes.
    custom_options: bytes = b""


@dataclass
class Spec:
    tensors: list[T]
    ops: list[Op]
    inputs: list[int]
    outputs: list[int]
    buffers: list = field(default_factory=list)   # bytes, or (offset, size)


def _vector(builder, start, values, prepend) -> int:
    start(builder, len(values))
    for value in reversed(list(values)):
        prepend(value)
    return builder.EndVector()


def _ints(b, values) -> int:
    return b.CreateNumpyVector(np.asarray(values, np.int32))


def _sparsity(b, sparsity: tuple) -> int:
    order, block_map, records = sparsity
    dims = []
    for record in records:
        if isinstance(record, int):
            tflite.DimensionMetadataStart(b)
            tflite.DimensionMetadataAddFormat(b, 0)
            tflite.DimensionMetadataAddDenseSize(b, record)
            dims.append(tflite.DimensionMetadataEnd(b))
            continue
        vectors = []
        for values in record:
            data = _ints(b, values)
            tflite.Int32VectorStart(b)
            tflite.Int32VectorAddValues(b, data)
            vectors.append(tflite.Int32VectorEnd(b))
        tflite.DimensionMetadataStart(b)
        tflite.DimensionMetadataAddFormat(b, 1)
        tflite.DimensionMetadataAddArraySegmentsType(b, tflite.SparseIndexVector.Int32Vector)
        tflite.DimensionMetadataAddArraySegments(b, vectors[0])
        tflite.DimensionMetadataAddArrayIndicesType(b, tflite.SparseIndexVector.Int32Vector)
        tflite.DimensionMetadataAddArrayIndices(b, vectors[1])
        dims.append(tflite.DimensionMetadataEnd(b))
    order_vec, map_vec = _ints(b, order), _ints(b, block_map)
    dim_vec = _vector(b, tflite.SparsityParametersStartDimMetadataVector, dims,
                      b.PrependUOffsetTRelative)
    tflite.SparsityParametersStart(b)
    tflite.SparsityParametersAddTraversalOrder(b, order_vec)
    tflite.SparsityParametersAddBlockMap(b, map_vec)
    tflite.SparsityParametersAddDimMetadata(b, dim_vec)
    return tflite.SparsityParametersEnd(b)


# Builtins whose first version LiteRT registers is above 1.
FIRST_VERSIONS = {tflite.BuiltinOperator.BROADCAST_TO: 2}


def build(spec: Spec, more: Sequence[Spec] = ()) -> bytes:
    """The model of `spec`, with the subgraphs `more` after it (their
    tensors name buffers of `spec`)."""
    b = flatbuffers.Builder(1024)
    codes = sorted({op.code for graph in (spec, *more) for op in graph.ops}, key=str)
    code_offsets = []
    for code in codes:
        name = b.CreateString(code) if isinstance(code, str) else None
        tflite.OperatorCodeStart(b)
        builtin = tflite.BuiltinOperator.CUSTOM if isinstance(code, str) else code
        tflite.OperatorCodeAddBuiltinCode(b, builtin)
        tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(builtin, 127))
        tflite.OperatorCodeAddVersion(b, FIRST_VERSIONS.get(builtin, 1))
        if name is not None:
            tflite.OperatorCodeAddCustomCode(b, name)
        code_offsets.append(tflite.OperatorCodeEnd(b))
    buffers = []
    for entry in [b""] + list(spec.buffers):
        data = None
        if isinstance(entry, (bytes, bytearray)) and entry:
            data = b.CreateNumpyVector(np.frombuffer(entry, np.uint8))
        tflite.BufferStart(b)
        if data is not None:
            tflite.BufferAddData(b, data)
        if isinstance(entry, tuple):
            tflite.BufferAddOffset(b, entry[0])
            tflite.BufferAddSize(b, entry[1])
        buffers.append(tflite.BufferEnd(b))
    graphs = [_subgraph(b, graph, codes) for graph in (spec, *more)]
    graphs = _vector(b, tflite.ModelStartSubgraphsVector, graphs, b.PrependUOffsetTRelative)
    code_vec = _vector(b, tflite.ModelStartOperatorCodesVector, code_offsets,
                       b.PrependUOffsetTRelative)
    buffer_vec = _vector(b, tflite.ModelStartBuffersVector, buffers, b.PrependUOffsetTRelative)
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, code_vec)
    tflite.ModelAddSubgraphs(b, graphs)
    tflite.ModelAddBuffers(b, buffer_vec)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def _subgraph(b, spec: Spec, codes: list) -> int:
    tensors = []
    for tensor in spec.tensors:
        name = b.CreateString(tensor.name)
        shape = b.CreateNumpyVector(np.asarray(tensor.shape, np.int32))
        sparsity = _sparsity(b, tensor.sparsity) if tensor.sparsity else None
        tflite.TensorStart(b)
        tflite.TensorAddName(b, name)
        tflite.TensorAddShape(b, shape)
        tflite.TensorAddType(b, tensor.dtype)
        tflite.TensorAddBuffer(b, tensor.buffer)
        if sparsity is not None:
            tflite.TensorAddSparsity(b, sparsity)
        tensors.append(tflite.TensorEnd(b))
    ops = []
    for op in spec.ops:
        ins = b.CreateNumpyVector(np.asarray(op.inputs, np.int32))
        outs = b.CreateNumpyVector(np.asarray(op.outputs, np.int32))
        options = op.options[1](b) if op.options else None
        custom = b.CreateNumpyVector(np.frombuffer(op.custom_options, np.uint8)) \
            if op.custom_options else None
        tflite.OperatorStart(b)
        tflite.OperatorAddOpcodeIndex(b, codes.index(op.code))
        tflite.OperatorAddInputs(b, ins)
        tflite.OperatorAddOutputs(b, outs)
        if options is not None:
            tflite.OperatorAddBuiltinOptionsType(b, op.options[0])
            tflite.OperatorAddBuiltinOptions(b, options)
        if custom is not None:
            tflite.OperatorAddCustomOptions(b, custom)
        ops.append(tflite.OperatorEnd(b))
    tensor_vec = _vector(b, tflite.SubGraphStartTensorsVector, tensors, b.PrependUOffsetTRelative)
    op_vec = _vector(b, tflite.SubGraphStartOperatorsVector, ops, b.PrependUOffsetTRelative)
    ins = b.CreateNumpyVector(np.asarray(spec.inputs, np.int32))
    outs = b.CreateNumpyVector(np.asarray(spec.outputs, np.int32))
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensor_vec)
    tflite.SubGraphAddOperators(b, op_vec)
    tflite.SubGraphAddInputs(b, ins)
    tflite.SubGraphAddOutputs(b, outs)
    return tflite.SubGraphEnd(b)


def add_model(constant: np.ndarray, buffer_index: int = 1, buffers=None) -> bytes:
    """x + c for a float32 input x of c's shape: ADD (0) of an input and a
    constant (tensor 1, in buffer `buffer_index`)."""
    shape = list(constant.shape)
    return build(Spec([T("x", shape), T("c", shape, buffer_index), T("y", shape)],
                      [Op(tflite.BuiltinOperator.ADD, [0, 1], [2])], [0], [2],
                      buffers if buffers is not None
                      else [constant.astype("<f4").tobytes()]))
