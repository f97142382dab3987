"""The ONNX converter table and helpers shared by the converter modules."""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter import geometry
from mace_converter.frontends.node import Node, registry
from mace_converter.frontends.onnx_shape_flow import shape_from_consumers

CONVERTERS, converter = registry()

# Ops never evaluated at import time even with constant inputs: randomness,
# or ops whose folding would only waste time (the IR folds those later).
NEVER_FOLD = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike",
                        "RandomUniformLike", "Multinomial", "If", "Loop", "Scan"})


def normalize_axis(node: Node, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise node.fail(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def window_pads(node: Node, size_hw: tuple[int, int], kernel_hw: list[int],
                strides: list[int], dilations: list[int]) -> list[int]:
    """[top, left, bottom, right] for the node's auto_pad / pads attributes."""
    auto_pad = node.attr("auto_pad", "NOTSET")
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        lower = auto_pad == "SAME_LOWER"
        top, bottom = geometry.same_pads(size_hw[0], kernel_hw[0], strides[0], dilations[0], lower)
        left, right = geometry.same_pads(size_hw[1], kernel_hw[1], strides[1], dilations[1],
                                         lower)
        return [top, left, bottom, right]
    if auto_pad == "VALID":
        return [0, 0, 0, 0]
    if auto_pad != "NOTSET":
        raise node.fail(f"auto_pad '{auto_pad}' is not supported")
    pads = node.ints("pads", [0, 0, 0, 0])
    if len(pads) != 4:
        raise node.fail(f"pads {pads} must have 4 values for a 2D window")
    if min(pads) < 0:
        raise node.fail(f"negative pads {pads} are not supported")
    return pads


def spatial_2d(node: Node, what: str = "input") -> None:
    if node.rank(0) != 4:
        raise node.fail(f"{what} has shape {list(node.shape(0))}; only 2D (NCHW, rank 4) "
                        "windows are supported")


def scalar_or_none(value: Optional[np.ndarray]) -> Optional[float]:
    if value is None:
        return None
    if value.size != 1:
        return None
    return float(value.reshape(-1)[0])


def activation(node: Node, kind: str, **extra) -> None:
    args = {"activation": kind}
    args.update(extra)
    node.emit_out("Activation", [node.tensor(0)], args)


def float_input(node: Node, index: int) -> str:
    """Input `index` as a float32 tensor: integer and bool constants are
    stored as float32 (the engine carries them so); computed tensors as
    they are."""
    if node.is_const(index):
        value = np.asarray(node.const(index))
        if value.dtype != np.float32:
            key = (node.inputs[index], "float32")
            if key not in node.ir_consts:
                node.ir_consts[key] = node.weight(node.inputs[index], value.astype(np.float32))
            return node.ir_consts[key]
    return node.tensor(index)


def eltwise(node: Node, kind: int, a: int, b: Optional[int], outputs=None,
            activation_args: Optional[dict] = None) -> str:
    """An Eltwise of node inputs a and b; a scalar constant operand becomes
    the scalar_input argument. Returns the output name."""
    args: dict = {"type": kind}
    if activation_args:
        args.update(activation_args)
    if b is None:
        inputs = [node.tensor(a)]
    else:
        inputs = None
        for index, scalar_index in ((b, 1), (a, 0)):
            other = a if index == b else b
            if node.is_const(index) and node.const(index).size == 1 and not node.is_const(other):
                value = node.const(index)
                out_rank = len(node.shape(other))
                if value.ndim <= out_rank:
                    args["scalar_input"] = float(value.reshape(-1)[0])
                    args["scalar_input_index"] = scalar_index
                    inputs = [node.tensor(other)]
                    break
        if inputs is None:
            # Eltwise computes in float32: shape arithmetic's int64 and
            # int32 constants go in as float32 too.
            inputs = [float_input(node, i) if node.is_const(i) and
                      np.asarray(node.const(i)).dtype in (np.int64, np.int32) else node.tensor(i)
                      for i in (a, b)]
    op = node.emit("Eltwise", inputs, args, outputs=outputs)
    return op.outputs[0]


def computed(node: Node, index: int) -> bool:
    """Whether input `index` is present and computed at run time (a graph
    input or the result of other ops), not a constant."""
    return node.has_input(index) and not node.known(index)


def declared_shape(node: Node, output: int = 0) -> Optional[tuple[int, ...]]:
    """The shape the model declares for output `output`, directly or
    through elementwise consumers (shape_from_consumers), or None."""
    name = node.outputs[output]
    shape = node.graph.declared_shapes.get(name)
    return shape if shape is not None else shape_from_consumers(node, name)


def planned_shape(node: Node, what: str, output: int = 0) -> tuple[int, ...]:
    """The shape the model declares for output `output` of a node whose
    output shape depends on `what`, a tensor computed at run time. The
    engine plans memory for that shape and refuses a run whose values give
    another."""
    name = node.outputs[output]
    shape = declared_shape(node, output)
    if shape is None:
        raise node.fail(f"{what} is computed at run time, so the shape of output '{name}' "
                        "depends on run-time values; the model must declare that shape "
                        "(graph output or value_info), which the engine plans memory for")
    return shape
