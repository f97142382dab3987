"""Plain numpy implementations of MACE's ops, written from the op
documentation (docs/reference/ops*.md) rather than from the C++ kernels.

Each kernel takes the op's input arrays (None for an absent optional input),
its argument dict and its output count, and returns the output arrays. They
compute in float64 and the caller stores float32, as the engine does. The
numpy runner uses them to check converted models, and constant folding uses
them to evaluate ops whose inputs are all constant.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from mace_converter.op_specs import SpecField, attach

Kernel = Callable[[list[Optional[np.ndarray]], dict, int], list[np.ndarray]]
# The kernels by op type: a view of the op specs (mace_converter/op_specs.py).
KERNELS = SpecField("numpy_kernel")


def kernel(*op_types: str) -> Callable[[Kernel], Kernel]:
    """Attaches the kernel to the specs of `op_types`."""
    return attach("numpy_kernel", *op_types)


# Kernels register themselves on import.
from mace_converter.numpy_ops import (  # noqa: E402,F401
    argmax_pool, attention, detection, logic, nn, recurrent, spatial, tensor)
