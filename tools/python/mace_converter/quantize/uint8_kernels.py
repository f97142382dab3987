"""How the converter quantizes an op type with a uint8 CPU kernel: the
Uint8Kernel record and the conditions the kernels put on an op. Each op's
record sits in its spec (mace_converter/op_specs.py); the graph pass
(graph_pass.py) reads them there."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from mace_converter.ir import Op

# Activations the uint8 kernels fold into their output clamp.
CLAMPABLE = ("NOOP", "RELU", "RELU6", "RELUX")


# A tensor's shape by its float name, whether it is float or uint8 by now.
Shapes = Callable[[str], Optional[tuple[int, ...]]]

# How a uint8 op's output is quantized.
OWN_RANGE = "own"        # its own measured range
KEEP_INPUT = "input"     # input 0's scale and zero point (the kernel cannot rescale)
FIXED = "fixed"          # parameters fixed by the kernel (Uint8Kernel.fixed_output)


@dataclass(frozen=True)
class Uint8Kernel:
    """How the converter quantizes one op type that the engine registers as
    (type, CPU, DT_UINT8). `weight`/`bias` are input indices of constants."""
    weight: Optional[int] = None
    bias: Optional[int] = None
    # int8 symmetric per output channel (else uint8 per tensor).
    per_channel: bool = False
    # Which elements of the weight belong to output channel o:
    # "leading": slice o of dimension 0; "depthwise": the filter is
    # [multiplier, channels, kh, kw] and element [m, c] feeds output channel
    # c * multiplier + m (scheme.channel_rows).
    channel_layout: str = "leading"
    # The weight input may also be a uint8 activation (MatMul of two tensors).
    weight_may_vary: bool = False
    # Input indices read as uint8 activations; None means all of them.
    # Other inputs (int32 shapes, ...) pass through unchanged.
    activations: Optional[tuple[int, ...]] = (0,)
    output: str = OWN_RANGE
    fixed_output: Optional[tuple[float, int]] = None
    # Extra condition on the op, e.g. arguments the kernel cannot take.
    # It gets the op and a function giving a tensor's shape (float or uint8).
    accepts: Callable[[Op, Shapes], bool] = lambda op, shape: True


def fused_clampable(op: Op, shape: Shapes) -> bool:
    return op.args.get("activation", "NOOP") in CLAMPABLE


# Eltwise "type" values with a uint8 kernel: SUM, SUB, PROD (mace/ops/ref/eltwise.h).
UINT8_ELTWISE_TYPES = (0, 1, 2)


def eltwise(op: Op, shape: Shapes) -> bool:
    """SUM, SUB, PROD of two tensors of one shape, or with a second operand
    of one value, without coefficients; a fused RELU/RELU6/RELUX is the clamp."""
    if op.args.get("type") not in UINT8_ELTWISE_TYPES or len(op.inputs) != 2:
        return False
    if "scalar_input" in op.args or list(op.args.get("coeff", [1.0, 1.0])) != [1.0, 1.0]:
        return False
    shapes = [shape(name) for name in [*op.inputs, op.outputs[0]]]
    if any(dims is None for dims in shapes):
        return False
    sizes = [int(np.prod(dims)) for dims in shapes]
    if sizes[2] != sizes[0] or sizes[1] not in (sizes[0], 1):
        # The kernel swaps the operands of a sum or product whose first
        # operand holds the single value.
        if op.args["type"] == 1 or sizes[0] != 1 or sizes[1] != sizes[2]:
            return False
    return fused_clampable(op, shape)


def matmul(op: Op, shape: Shapes) -> bool:
    return len(op.inputs) == 2 and op.args.get("activation", "NOOP") in CLAMPABLE


def activation(op: Op, shape: Shapes) -> bool:
    return op.args.get("activation") in ("RELU", "RELU6", "RELUX") and len(op.inputs) == 1


def softmax(op: Op, shape: Shapes) -> bool:
    return not op.args.get("use_log", 0)


# The output quantization of the uint8 Softmax (ref/quantized/softmax.h).
SOFTMAX_OUTPUT = (1.0 / 256.0, 0)

# Ops whose uint8 kernel moves bytes: the output keeps input 0's quantization.
FOLLOWS_INPUT = Uint8Kernel(output=KEEP_INPUT)
