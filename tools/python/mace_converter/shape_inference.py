"""Static output shapes of every MACE op the converter emits.

`infer_op` runs when a frontend adds an op (so later ops can ask for shapes)
and `infer_graph` reruns it over the final graph, whose shapes serialization
writes into OperatorDef.output_shape.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from mace_converter import geometry
from mace_converter.api import ConversionError
from mace_converter.ir import FLOAT32, INT32, UINT8, Graph, Op
from mace_converter.op_specs import SpecField, attach

Shape = tuple[int, ...]
Rule = Callable[[Op, list[Optional[Shape]], Graph], list[Shape]]
# The rules by op type: a view of the op specs (mace_converter/op_specs.py).
RULES = SpecField("shape_rule")


def rule(*op_types: str) -> Callable[[Rule], Rule]:
    """Attaches the rule to the specs of `op_types`."""
    return attach("shape_rule", *op_types)


def known_types() -> frozenset[str]:
    return frozenset(RULES)


def fail(op: Op, message: str) -> ConversionError:
    return ConversionError(f"{op.describe()}: {message}")


def infer_op(graph: Graph, op: Op) -> None:
    fn = RULES.get(op.type)
    if fn is None:
        raise fail(op, f"no shape rule for MACE op type {op.type}")
    shapes = [graph.tensor(name).shape if name else None for name in op.inputs]
    for name, shape in zip(op.inputs, shapes):
        if name and shape is None:
            raise fail(op, f"input '{name}' has an unknown shape")
        if name in graph.run_time_shaped and op.planned is None:
            raise fail(op, f"input '{name}' has a shape known only at run time (it follows "
                           f"values the model computes), which MACE op {op.type} needs at "
                           "conversion; only ops whose output shape the model declares read "
                           "such a tensor")
    outs = op.planned if op.planned is not None else fn(op, shapes, graph)
    for k, (name, shape) in enumerate(zip(op.outputs, outs)):
        if any(d < 0 for d in shape):
            raise fail(op, f"output '{name}' would have shape {list(shape)}")
        tensor = graph.tensor(name)
        tensor.shape = tuple(int(d) for d in shape)
        if op.output_dtypes is not None:
            tensor.dtype = op.output_dtypes[k]
        else:
            tensor.dtype = INT32 if _int32_output(op, k) else _first_dtype(op, graph)


@rule("If", "Loop", "Scan")
def _control_flow(op: Op, shapes, graph: Graph) -> list[Shape]:
    # The frontend plans these from the converted subgraphs (op.planned).
    raise fail(op, "a control-flow op needs the output shapes of its subgraphs")


def infer_graph(graph: Graph) -> None:
    for op in graph.ops:
        infer_op(graph, op)


def _int32_output(op: Op, index: int) -> bool:
    """ArgMax's, Bitwise's and NonMaxSuppression's results and a MAX
    Pooling's or MaxPool3D's indices (its second output)."""
    return op.type in ("ArgMax", "Bitwise", "NonMaxSuppression") or \
        (op.type in ("Pooling", "MaxPool3D") and index == 1)


def _first_dtype(op: Op, graph: Graph) -> str:
    if op.type in ("Concat", "Split", "Slice", "Reshape", "Squeeze", "Transpose", "Identity"):
        return graph.tensor(op.inputs[0]).dtype
    return UINT8 if op.type == "Quantize" else FLOAT32


def _rank(op: Op, shape: Shape, rank: int, what: str = "input") -> None:
    if len(shape) != rank:
        raise fail(op, f"{what} has shape {list(shape)} but needs rank {rank}")


def _axis(op: Op, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise fail(op, f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def broadcast(op: Op, a: Sequence[int], b: Sequence[int]) -> Shape:
    rank = max(len(a), len(b))
    full_a = (1,) * (rank - len(a)) + tuple(a)
    full_b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(full_a, full_b):
        if x != y and x != 1 and y != 1:
            raise fail(op, f"shapes {list(a)} and {list(b)} do not broadcast")
        out.append(y if x == 1 else x)     # 1 against 0 gives 0 (no elements)
    return tuple(out)


# ---- convolution family -----------------------------------------------------
@rule("Conv2D", "DepthwiseConv2d")
def _conv(op, shapes, graph):
    x, w = shapes[0], shapes[1]
    _rank(op, x, 4)
    _rank(op, w, 4, "filter")
    if op.type == "Conv2D":
        group = int(op.args.get("group", 1))
        if w[1] * group != x[1]:
            raise fail(op, f"filter {list(w)} with group {group} does not fit "
                           f"{x[1]} input channels")
        channels = w[0]
    else:
        if w[1] != x[1]:
            raise fail(op, f"depthwise filter {list(w)} does not fit {x[1]} channels")
        channels = w[0] * w[1]
    out_h, out_w, _ = geometry.window_shape(op.args, x[2:], w[2:])
    return [(x[0], channels, out_h, out_w)]


@rule("Deconv2D")
def _deconv(op, shapes, graph):
    x, w = shapes[0], shapes[1]
    _rank(op, x, 4)
    _rank(op, w, 4, "filter")
    if w[0] != x[1]:
        raise fail(op, f"filter {list(w)} does not fit {x[1]} input channels")
    out_h, out_w, _ = geometry.deconv_shape(op.args, x[2:], w[2:])
    return [(x[0], w[1] * int(op.args.get("group", 1)), out_h, out_w)]


@rule("Deconv3D")
def _deconv3d(op, shapes, graph):
    x, w = shapes[0], shapes[1]
    _rank(op, x, 5)
    _rank(op, w, 5, "filter")
    if w[0] != x[1]:
        raise fail(op, f"filter {list(w)} does not fit {x[1]} input channels")
    out = [x[0], w[1] * int(op.args.get("group", 1))]
    strides = op.args.get("strides", [1, 1, 1])
    dilations = op.args.get("dilations", [1, 1, 1])
    pads = op.args.get("pads", [0] * 6)
    output_padding = op.args.get("output_padding", [0, 0, 0])
    for axis in range(3):
        full = geometry.deconv_full(x[2 + axis], w[2 + axis], strides[axis], dilations[axis],
                                    output_padding[axis])
        out.append(full - pads[axis] - pads[axis + 3])
    return [tuple(out)]


@rule("Conv3D")
def _conv3d(op, shapes, graph):
    x, w = shapes[0], shapes[1]
    _rank(op, x, 5)
    _rank(op, w, 5, "filter")
    group = int(op.args.get("group", 1))
    if w[1] * group != x[1] or w[0] % group:
        raise fail(op, f"filter {list(w)} with group {group} does not fit "
                       f"{x[1]} input channels")
    strides = op.args.get("strides", [1, 1, 1])
    dilations = op.args.get("dilations", [1, 1, 1])
    pads = op.args.get("pads", [0] * 6)
    out = [x[0], w[0]]
    for axis in range(3):
        size = geometry.window_output(x[2 + axis], w[2 + axis], strides[axis], dilations[axis],
                                      (pads[axis], pads[axis + 3]))
        if size <= 0:
            raise fail(op, f"the window {list(w[2:])} does not fit the input {list(x)}")
        out.append(size)
    return [tuple(out)]


@rule("MaxPool3D")
def _max_pool_3d(op, shapes, graph):
    x = shapes[0]
    _rank(op, x, 5)
    kernel = op.args["kernels"]
    strides = op.args.get("strides", [1, 1, 1])
    dilations = op.args.get("dilations", [1, 1, 1])
    pads = op.args.get("pads", [0] * 6)
    out = [x[0], x[1]]
    for axis in range(3):
        size = geometry.window_output(x[2 + axis], kernel[axis], strides[axis], dilations[axis],
                                      (pads[axis], pads[axis + 3]),
                                      bool(op.args.get("ceil_mode", 0)))
        if size <= 0:
            raise fail(op, f"the window {list(kernel)} does not fit the input {list(x)}")
        out.append(size)
    return [tuple(out)] * len(op.outputs)


@rule("Pooling")
def _pooling(op, shapes, graph):
    x = shapes[0]
    _rank(op, x, 4)
    if len(op.outputs) == 2 and int(op.args.get("pooling_type", 1)) != 2:
        raise fail(op, "only MAX pooling has an indices output")
    if op.args.get("global"):
        out = (x[0], x[1], 1, 1)
    else:
        out_h, out_w, _ = geometry.window_shape(op.args, x[2:], op.args["kernels"])
        out = (x[0], x[1], out_h, out_w)
    return [out] * len(op.outputs)


@rule("FullyConnected", "DynamicQuantizedFullyConnected")
def _fc(op, shapes, graph):
    x, w = shapes[0], shapes[1]
    if len(x) not in (2, 4):
        raise fail(op, f"input has shape {list(x)} but needs rank 2 or 4")
    if int(np.prod(x[1:])) != w[1]:
        raise fail(op, f"weight {list(w)} does not fit input {list(x)}")
    return [(x[0], w[0]) if len(x) == 2 else (x[0], w[0], 1, 1)]


@rule("MatMul")
def _matmul(op, shapes, graph):
    a, b = shapes[0], shapes[1]
    if len(a) < 2 or len(b) < 2:
        raise fail(op, f"operands {list(a)} and {list(b)} need rank 2 or more")
    m, k = (a[-1], a[-2]) if op.args.get("transpose_a") else (a[-2], a[-1])
    k2, n = (b[-1], b[-2]) if op.args.get("transpose_b") else (b[-2], b[-1])
    if k != k2:
        raise fail(op, f"inner dimensions of {list(a)} and {list(b)} differ")
    return [broadcast(op, a[:-2], b[:-2]) + (m, n)]


# ---- element-wise -------------------------------------------------------------
@rule("Dropout")
def _dropout(op, shapes, graph):
    return [shapes[0]] * len(op.outputs)


@rule("Activation", "Cast", "Dequantize", "DequantizeLinear", "Identity", "LocalResponseNorm",
      "Quantize", "QuantizeLinear", "Unary")
def _same(op, shapes, graph):
    return [shapes[0]]


@rule("BatchNorm", "BiasAdd")
def _per_channel(op, shapes, graph):
    """The parameters (BatchNorm's scale, offset and, if given, mean and
    variance; BiasAdd's bias) hold one value per channel, dim 1 of the
    input, as the engine checks at Init."""
    def known(shape) -> bool:
        return all(isinstance(d, (int, np.integer)) and d >= 0 for d in shape)

    if len(shapes[0]) >= 2 and known(shapes[0][1:2]):
        channels = shapes[0][1]
        roles = ("bias",) if op.type == "BiasAdd" else ("scale", "offset", "mean", "variance")
        for role, shape in zip(roles, shapes[1:]):
            if shape is not None and known(shape) and int(np.prod(shape)) != channels:
                raise fail(op, f"{role} has {int(np.prod(shape))} values for {channels} channels "
                               f"(input shape {list(shapes[0])})")
    return [shapes[0]]


@rule("Softmax")
def _softmax(op, shapes, graph):
    _axis(op, int(op.args.get("axis", -1)), len(shapes[0]))
    return [shapes[0]]


@rule("Eltwise")
def _eltwise(op, shapes, graph):
    if len(shapes) == 1:
        return [shapes[0]]
    return [broadcast(op, shapes[0], shapes[1])]


# The shape, layout and spatial rules register themselves on import.
from mace_converter import shape_rules  # noqa: E402,F401  pylint: disable=wrong-import-position
from mace_converter import recurrent_shapes  # noqa: E402,F401  pylint: disable=C0413
from mace_converter import shape_rules_more  # noqa: E402,F401  pylint: disable=wrong-import-position
from mace_converter import states  # noqa: E402,F401  pylint: disable=wrong-import-position
from mace_converter import shape_rules_detection  # noqa: E402,F401  pylint: disable=C0413
