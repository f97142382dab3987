"""TensorFlow converters (frozen-graph ops, NHWC in, NCHW IR out)."""
from __future__ import annotations

import numpy as np

from mace_converter import geometry
from mace_converter.frontends.node import registry
from mace_converter.frontends.tensorflow_frontend import NCHW_AXIS, TO_NCHW, TfNode
from mace_converter.numpy_ops.tensor import DIV, MAX, MIN, PROD, SQR_DIFF, SUB, SUM
from mace_converter.shape_rules import PAD_AMOUNTS

CONVERTERS, converter = registry()


def _spatial(node: TfNode, key: str, default: int = 1) -> list[int]:
    values = node.ints(key, [default] * 4)
    nhwc = node.attr("data_format", "NHWC") == "NHWC"
    return values[1:3] if nhwc else values[2:4]


def _image(node: TfNode) -> tuple[str, str]:
    """(NCHW IR input, layout of the result) for data_format NHWC or NCHW."""
    if node.attr("data_format", "NHWC") == "NHWC":
        return node.nchw(0), "nchw"
    return node.tf(0), "tf"


def _pads(node: TfNode, size_hw, kernel_hw, strides, dilations) -> list[int]:
    padding = node.attr("padding", "VALID")
    if padding == "VALID":
        return [0, 0, 0, 0]
    if padding == "SAME":
        top, bottom = geometry.same_pads(size_hw[0], kernel_hw[0], strides[0], dilations[0])
        left, right = geometry.same_pads(size_hw[1], kernel_hw[1], strides[1], dilations[1])
        return [top, left, bottom, right]
    if padding == "EXPLICIT":
        explicit = node.ints("explicit_paddings")
        first = 2 if node.attr("data_format", "NHWC") == "NHWC" else 4
        h_b, h_a, w_b, w_a = explicit[first:first + 4]
        return [h_b, w_b, h_a, w_a]
    raise node.fail(f"padding '{padding}' is not supported")


@converter("Placeholder")
def placeholder(node: TfNode) -> None:
    raise node.fail("this Placeholder feeds the outputs but is not an input in the "
                    "deployment file")


@converter("Identity", "StopGradient", "Snapshot")
def identity(node: TfNode) -> None:
    node.produce("Identity", [node.inputs[0]], layout=node.layout(0))


@converter("Conv2D", "DepthwiseConv2dNative")
def conv(node: TfNode) -> None:
    x, layout = _image(node)
    filt = node.const(1, "filter").astype(np.float32)        # HWIO or [kh, kw, C, M]
    strides, dilations = _spatial(node, "strides"), _spatial(node, "dilations")
    size = node.graph.shape(x)[2:]
    args = {"strides": strides, "dilations": dilations,
            "pads": _pads(node, size, filt.shape[:2], strides, dilations)}
    weights = node.weight(node.inputs[1], filt.transpose(3, 2, 0, 1))
    if node.op_type == "Conv2D":
        group = node.graph.shape(x)[1] // filt.shape[2]
        if group != 1:
            args["group"] = group
        node.produce("Conv2D", [x, weights], args, layout)
    else:
        node.produce("DepthwiseConv2d", [x, weights], args, layout)


@converter("MaxPool", "AvgPool")
def pool(node: TfNode) -> None:
    x, layout = _image(node)
    kernel, strides = _spatial(node, "ksize"), _spatial(node, "strides")
    size = node.graph.shape(x)[2:]
    args = {"pooling_type": 2 if node.op_type == "MaxPool" else 1, "kernels": kernel,
            "strides": strides, "pads": _pads(node, size, kernel, strides, [1, 1])}
    node.produce("Pooling", [x], args, layout)


@converter("BiasAdd")
def bias_add(node: TfNode) -> None:
    if node.rank(0) == 4:
        x, layout = _image(node)
    elif node.rank(0) == 2 or node.attr("data_format", "NHWC") == "NCHW":
        x, layout = node.tf(0), "tf"
    else:
        # MACE's BiasAdd adds along dimension 1; NHWC puts channels last.
        node.produce("Eltwise", [node.tf(0), node.tensor(1)], {"type": SUM})
        return
    node.produce("BiasAdd", [x, node.tensor(1)], layout=layout)


@converter("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def fused_batch_norm(node: TfNode) -> None:
    if node.attr("is_training", False):
        raise node.fail("is_training FusedBatchNorm is not supported; freeze the graph for "
                        "inference")
    x, layout = _image(node)
    gamma, beta = node.const(1, "scale"), node.const(2, "offset")
    mean, var = node.const(3, "mean"), node.const(4, "variance")
    scale = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64)
                                               + float(node.attr("epsilon", 1e-4)))
    offset = beta.astype(np.float64) - mean.astype(np.float64) * scale
    node.produce("BatchNorm", [x, node.weight(node.name + "/scale", scale.astype(np.float32)),
                               node.weight(node.name + "/offset", offset.astype(np.float32))],
                 layout=layout)


_ACTIVATIONS = {"Relu": "RELU", "Relu6": "RELU6", "Sigmoid": "SIGMOID", "Tanh": "TANH",
                "LeakyRelu": "LEAKYRELU"}


@converter(*_ACTIVATIONS)
def activation(node: TfNode) -> None:
    args = {"activation": _ACTIVATIONS[node.op_type]}
    if node.op_type == "LeakyRelu":
        args["activation_coefficient"] = float(node.attr("alpha", 0.2))
    node.produce("Activation", [node.inputs[0]], args, node.layout(0))


# TensorFlow ops that map to one Unary type each (element-wise, so the
# tensor keeps its layout). TensorFlow's Round rounds halves to even, as
# Unary's ROUND does.
_UNARY = {"Exp": "EXP", "Log": "LOG", "Floor": "FLOOR", "Ceil": "CEIL", "Round": "ROUND",
          "Sign": "SIGN", "Erf": "ERF", "Softplus": "SOFTPLUS", "Softsign": "SOFTSIGN",
          "Elu": "ELU", "Selu": "SELU", "Sin": "SIN", "Cos": "COS", "Tan": "TAN",
          "Asin": "ASIN", "Acos": "ACOS", "Atan": "ATAN", "Sinh": "SINH", "Cosh": "COSH",
          "Asinh": "ASINH", "Acosh": "ACOSH", "Atanh": "ATANH"}


@converter(*_UNARY)
def unary_math(node: TfNode) -> None:
    node.produce("Unary", [node.inputs[0]], {"type": _UNARY[node.op_type]}, node.layout(0))


_ELTWISE = {"Add": SUM, "AddV2": SUM, "Sub": SUB, "Mul": PROD, "RealDiv": DIV,
            "Maximum": MAX, "Minimum": MIN, "SquaredDifference": SQR_DIFF}


@converter(*_ELTWISE)
def binary(node: TfNode) -> None:
    args = {"type": _ELTWISE[node.op_type]}
    tensors = [i for i in range(2) if not node.is_const(i)]
    consts = [i for i in range(2) if node.is_const(i)]
    layouts = {node.layout(i) for i in tensors}
    layout = "nchw" if layouts == {"nchw"} and all(node.rank(i) == 4 for i in tensors) else "tf"
    if consts and node.const(consts[0]).size == 1:
        args["scalar_input"] = float(node.const(consts[0]).reshape(-1)[0])
        args["scalar_input_index"] = consts[0]
        x = node.inputs[tensors[0]] if layout == "nchw" else node.tf(tensors[0])
        node.produce("Eltwise", [x], args, layout)
        return
    inputs = []
    for i in range(2):
        if layout == "tf":
            inputs.append(node.tf(i))
        elif node.is_const(i):
            value = node.const(i)
            value = value.reshape((1,) * (4 - value.ndim) + value.shape)
            inputs.append(node.weight(node.inputs[i] + "/nchw", np.transpose(value, TO_NCHW)))
        else:
            inputs.append(node.inputs[i])
    node.produce("Eltwise", inputs, args, layout)


@converter("MatMul")
def matmul(node: TfNode) -> None:
    trans_a, trans_b = bool(node.attr("transpose_a")), bool(node.attr("transpose_b"))
    if node.is_const(1) and not trans_a and not node.is_const(0):
        weights = node.const(1).astype(np.float32)
        weights = weights if trans_b else weights.T
        node.produce("FullyConnected", [node.tf(0), node.weight(node.inputs[1], weights)])
        return
    node.produce("MatMul", [node.tf(0), node.tf(1)],
                 {"transpose_a": int(trans_a), "transpose_b": int(trans_b)})


def _flat_order_kept(node: TfNode) -> bool:
    """An NCHW-stored tensor whose element order equals its NHWC order (one
    pixel, or one channel) can be reshaped without a Transpose."""
    if node.layout(0) != "nchw":
        return False
    _, h, w, c = node.tf_shape(0)
    return h * w == 1 or c == 1


def _reshape_to(node: TfNode, shape: list[int]) -> None:
    source = node.inputs[0] if _flat_order_kept(node) else node.tf(0)
    node.produce("Reshape", [source], {"shape": [int(d) for d in shape]})


@converter("Reshape")
def reshape(node: TfNode) -> None:
    total = int(np.prod(node.tf_shape(0)))
    target = [int(d) for d in node.const(1, "shape")]
    if -1 in target:
        known = int(np.prod([d for d in target if d != -1]))
        target[target.index(-1)] = total // max(known, 1)
    _reshape_to(node, target)


@converter("Squeeze")
def squeeze(node: TfNode) -> None:
    shape = node.tf_shape(0)
    axes = {a % len(shape) for a in node.ints("squeeze_dims")} or \
        {i for i, d in enumerate(shape) if d == 1}
    _reshape_to(node, [d for i, d in enumerate(shape) if i not in axes] or [1])


@converter("Softmax")
def softmax(node: TfNode) -> None:
    if node.layout(0) == "nchw":
        node.produce("Softmax", [node.inputs[0]], {"axis": 1}, "nchw")
    else:
        node.produce("Softmax", [node.tf(0)], {"axis": node.rank(0) - 1})


@converter("Mean", "Max", "Min", "Sum", "Prod")
def reduce(node: TfNode) -> None:
    kind = {"Mean": 0, "Min": 1, "Max": 2, "Prod": 3, "Sum": 4}[node.op_type]
    rank = len(node.tf_shape(0))
    axes = sorted({int(a) % rank for a in np.atleast_1d(node.const(1, "axes"))})
    keep = bool(node.attr("keep_dims", False))
    remaining = [NCHW_AXIS[a] for a in range(rank) if a not in axes] if rank == 4 else []
    if node.layout(0) == "nchw" and (keep or remaining == sorted(remaining)):
        args = {"reduce_type": kind, "axis": sorted(NCHW_AXIS[a] for a in axes),
                "keepdims": int(keep)}
        node.produce("Reduce", [node.inputs[0]], args, "nchw" if keep else "tf")
        return
    node.produce("Reduce", [node.tf(0)], {"reduce_type": kind, "axis": axes,
                                          "keepdims": int(keep)})


@converter("ConcatV2")
def concat(node: TfNode) -> None:
    count = len(node.inputs) - 1
    rank = len(node.tf_shape(0))
    axis = int(node.const(count, "axis")) % rank
    tensors = [i for i in range(count) if not node.is_const(i)]
    if rank == 4 and tensors and all(node.layout(i) == "nchw" for i in tensors):
        inputs = [node.nchw(i) for i in range(count)]
        node.produce("Concat", inputs, {"axis": NCHW_AXIS[axis]}, "nchw")
    else:
        node.produce("Concat", [node.tf(i) for i in range(count)], {"axis": axis})


@converter("Pad", "PadV2", "MirrorPad")
def pad(node: TfNode) -> None:
    paddings = node.const(1, "paddings").astype(np.int64).reshape(-1, 2)
    args: dict = {}
    if node.op_type == "MirrorPad":
        mode = node.attr("mode", "REFLECT")
        mirror_modes = {"REFLECT": 1, "SYMMETRIC": 2}
        if mode not in mirror_modes:
            raise node.fail(f"MirrorPad mode {mode} is not supported")
        args["pad_type"] = mirror_modes[mode]
    elif node.op_type == "PadV2" and float(node.const(2, "constant_values")) != 0.0:
        args["constant_value"] = float(node.const(2, "constant_values"))
    if node.layout(0) == "nchw":
        args[PAD_AMOUNTS] = [int(v) for v in paddings[TO_NCHW].reshape(-1)]
        node.produce("Pad", [node.inputs[0]], args, "nchw")
    else:
        args[PAD_AMOUNTS] = [int(v) for v in paddings.reshape(-1)]
        node.produce("Pad", [node.tf(0)], args)


# Converters in other modules register themselves in CONVERTERS on import.
from mace_converter.frontends import tf_recurrent  # noqa: E402,F401
