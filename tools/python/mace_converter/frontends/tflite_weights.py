"""Constant weights of TFLite models stored in a compact form, expanded at
conversion: float16 or int8 values behind DEQUANTIZE, and sparse values
(TFLite's DimensionMetadata format) behind DENSIFY."""
from __future__ import annotations

from typing import Any

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.frontends.tflite_model import Tensor

_DENSE = 0


def dequantize(tensor: Tensor, value: np.ndarray) -> np.ndarray:
    """The float32 values of a constant DEQUANTIZE input."""
    if value.dtype == np.float16:
        return value.astype(np.float32)
    if tensor.quant is None:
        raise ConversionError(f"tensor {tensor.index} '{tensor.name}' ({tensor.type_name}) "
                              "feeds DEQUANTIZE but has no scale and zero point")
    scale = tensor.quant.scale.astype(np.float32)
    zero = tensor.quant.zero_point.astype(np.float32)
    if scale.size > 1:
        axis = tensor.quant.axis
        if not 0 <= axis < value.ndim or value.shape[axis] != scale.size:
            raise ConversionError(f"tensor {tensor.index} '{tensor.name}': {scale.size} scales "
                                  f"on axis {axis} of shape {list(value.shape)}")
        shape = [1] * value.ndim
        shape[axis] = scale.size
        scale, zero = scale.reshape(shape), zero.reshape(shape)
    return ((value.astype(np.float32) - zero) * scale).astype(np.float32)


def _index_vector(metadata: Any, which: str) -> np.ndarray:
    import tflite
    kind = getattr(metadata, which + "Type")()
    table = getattr(metadata, which)()
    classes = {1: tflite.Int32Vector, 2: tflite.Uint16Vector, 3: tflite.Uint8Vector}
    if kind not in classes or table is None:
        raise ConversionError(f"sparse dimension has no {which} vector")
    vector = classes[kind]()
    vector.Init(table.Bytes, table.Pos)
    return np.asarray(vector.ValuesAsNumpy(), dtype=np.int64).reshape(-1) \
        if vector.ValuesLength() else np.zeros(0, np.int64)


def densify(tensor: Tensor, values: np.ndarray) -> np.ndarray:
    """Expands the sparse constant `tensor` (its stored non-zero `values`)
    to a dense array of its shape."""
    sparsity = tensor.sparsity
    shape = list(tensor.shape)
    where = f"sparse tensor {tensor.index} '{tensor.name}'"
    order = [int(v) for v in sparsity.TraversalOrderAsNumpy()] \
        if sparsity.TraversalOrderLength() else list(range(len(shape)))
    block_map = [int(v) for v in sparsity.BlockMapAsNumpy()] \
        if sparsity.BlockMapLength() else []
    levels = [sparsity.DimMetadata(i) for i in range(sparsity.DimMetadataLength())]
    if len(levels) != len(order) or len(order) != len(shape) + len(block_map) or \
            sorted(order) != list(range(len(order))):
        raise ConversionError(f"{where}: traversal order {order}, block map {block_map} and "
                              f"{len(levels)} dimension records do not fit shape {shape}")
    # Each traversal level: (expanded dimension, dense size or (segments, indices)).
    plan = []
    block_sizes = {}
    for level, meta in zip(order, levels):
        if meta.Format() == _DENSE:
            plan.append((level, int(meta.DenseSize()), None))
        else:
            plan.append((level, 0, (_index_vector(meta, "ArraySegments"),
                                    _index_vector(meta, "ArrayIndices"))))
        if level >= len(shape):
            block_sizes[level - len(shape)] = int(meta.DenseSize())
    blocks = [block_sizes.get(i, 1) for i in range(len(block_map))]
    # Coordinates of every stored value in the expanded (dims + blocks) space.
    coords = np.zeros((1, len(order)), np.int64)
    positions = np.zeros(1, np.int64)
    for level, size, sparse in plan:
        if sparse is None:
            coords = np.repeat(coords, size, axis=0)
            inner = np.tile(np.arange(size), len(positions))
            positions = np.repeat(positions, size) * size + inner
            coords[:, level] = inner
        else:
            segments, indices = sparse
            if positions.size and (positions.max() + 1 >= segments.size or
                                   segments.max(initial=0) > indices.size):
                raise ConversionError(f"{where}: its sparse segments run past its indices")
            counts = segments[positions + 1] - segments[positions]
            if np.any(counts < 0):
                raise ConversionError(f"{where}: its sparse segments are not ascending")
            starts = np.repeat(segments[positions], counts)
            new_positions = starts + (np.arange(int(counts.sum())) -
                                      np.repeat(np.cumsum(counts) - counts, counts))
            coords = np.repeat(coords, counts, axis=0)
            coords[:, level] = indices[new_positions]
            positions = new_positions
    if positions.size != values.size and positions.size and positions.max() >= values.size:
        raise ConversionError(f"{where}: its indices address {positions.size} values but "
                              f"{values.size} are stored")
    dense_coords = coords[:, :len(shape)].copy()
    for b, (dim, size) in enumerate(zip(block_map, blocks)):
        dense_coords[:, dim] = dense_coords[:, dim] * size + coords[:, len(shape) + b]
    if np.any(dense_coords >= np.asarray(shape)) or np.any(dense_coords < 0):
        raise ConversionError(f"{where}: an index lies outside shape {shape}")
    dense = np.zeros(shape, values.dtype)
    dense[tuple(dense_coords.T)] = values[positions]
    return dense
