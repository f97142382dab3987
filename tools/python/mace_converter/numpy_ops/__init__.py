"""Plain numpy implementations of MACE's ops, written from the op
documentation (docs/ops*.md) rather than from the C++ kernels.

Each kernel takes the op's input arrays (None for an absent optional input),
its argument dict and its output count, and returns the output arrays. They
compute in float64 and the caller stores float32, as the engine does. The
numpy runner uses them to check converted models, and constant folding uses
them to evaluate ops whose inputs are all constant.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

Kernel = Callable[[list[Optional[np.ndarray]], dict, int], list[np.ndarray]]
KERNELS: dict[str, Kernel] = {}


def kernel(*op_types: str):
    def register(fn: Kernel) -> Kernel:
        for op_type in op_types:
            KERNELS[op_type] = fn
        return fn
    return register


# Kernels register themselves on import.
from mace_converter.numpy_ops import logic, nn, recurrent, spatial, tensor  # noqa: E402,F401
