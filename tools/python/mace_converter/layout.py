"""Moves tensors between the source framework's layout (as the deployment
file gives shapes) and the engine's layout (as the converted model declares
them), e.g. NHWC TensorFlow images and the CPU runtime's NCHW."""
from __future__ import annotations

import math

import numpy as np

from mace_converter.api import TensorSpec
from mace_converter.progress import UserError

_PERMUTATIONS = {("NHWC", "NCHW"): (0, 3, 1, 2), ("NCHW", "NHWC"): (0, 2, 3, 1)}


def relayout(array: np.ndarray, source: TensorSpec, target: TensorSpec) -> np.ndarray:
    """`array` (laid out as `source` says) in the layout and shape of `target`."""
    shape = list(target.shape)
    if list(array.shape) == shape:
        return array
    permutation = _PERMUTATIONS.get((source.data_format, target.data_format))
    if permutation is not None and array.ndim == 4:
        moved = array.transpose(permutation)
        if list(moved.shape) == shape:
            return np.ascontiguousarray(moved)
    if array.size == math.prod(shape):
        return array.reshape(shape)
    raise UserError(f"tensor {target.name}: shape {list(array.shape)} ({source.data_format}) "
                    f"does not fit {shape} ({target.data_format})")


def to_engine(arrays: dict[str, np.ndarray], source: list[TensorSpec],
              engine: list[TensorSpec]) -> dict[str, np.ndarray]:
    """Source-side tensors keyed by source name -> engine-side, by engine name.
    Tensors pair up by position: the converter keeps the deployment file's order."""
    return {e.name: relayout(arrays[s.name], s, e) for s, e in zip(source, engine)}


def to_source(arrays: dict[str, np.ndarray], source: list[TensorSpec],
              engine: list[TensorSpec]) -> dict[str, np.ndarray]:
    return {s.name: relayout(arrays[e.name], e, s) for s, e in zip(source, engine)}
