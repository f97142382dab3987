"""TFLite converters for convolutions, pooling, matrix products,
element-wise ops and activations (NHWC in, NCHW IR out)."""
from __future__ import annotations

import numpy as np

from mace_converter import geometry
from mace_converter.frontends.node import registry
from mace_converter.frontends.tensorflow_frontend import TO_NCHW
from mace_converter.frontends.tflite_frontend import TfliteNode
from mace_converter.numpy_ops.tensor import DIV, MAX, MIN, POW, PROD, SUB, SUM

CONVERTERS, converter = registry()

_SAME, _VALID = 0, 1


def _pads(node: TfliteNode, size_hw, kernel_hw, strides, dilations) -> list[int]:
    padding = int(node.option("Padding", _SAME))
    if padding == _VALID:
        return [0, 0, 0, 0]
    if padding != _SAME:
        raise node.fail(f"padding {padding} is not supported (SAME and VALID are)")
    top, bottom = geometry.same_pads(size_hw[0], kernel_hw[0], strides[0], dilations[0])
    left, right = geometry.same_pads(size_hw[1], kernel_hw[1], strides[1], dilations[1])
    return [top, left, bottom, right]


def _window(node: TfliteNode) -> tuple[list[int], list[int]]:
    strides = [int(node.option("StrideH", 1)), int(node.option("StrideW", 1))]
    dilations = [int(node.option("DilationHFactor", 1)), int(node.option("DilationWFactor", 1))]
    if min(strides + dilations) < 1:
        raise node.fail(f"strides {strides} and dilations {dilations} must be positive")
    return strides, dilations


def _filter(node: TfliteNode, value: np.ndarray) -> str:
    """The engine's weight tensor `value` made from input 1, keeping the
    per-output-channel scales of a symmetric int8 weight."""
    name = node.weight(node.inputs[1], value)
    scales = node.importer.weight_scales.get(node.inputs[1])
    if scales is not None:
        node.graph.imported_weight_scales[name] = scales
    return name


def _bias(node: TfliteNode, index: int, inputs: list[str]) -> list[str]:
    if node.has_input(index):
        bias = node.const(index, "bias").astype(np.float32)
        inputs.append(node.weight(node.inputs[index], bias))
    return inputs


def _float_const(node: TfliteNode, index: int, what: str) -> np.ndarray:
    """A float32 weight (quantized ones hold their real values already:
    tflite_quant.dequantize_constants)."""
    value = node.const(index, what)
    if value.dtype != np.float32:
        raise node.fail(f"{what} is {value.dtype}; float32 weights (or float16 and int8 "
                        "ones behind DEQUANTIZE) are supported")
    return value


@converter("CONV_2D", "DEPTHWISE_CONV_2D")
def conv(node: TfliteNode) -> None:
    x = node.nchw(0)
    filt = _float_const(node, 1, "filter")
    if filt.ndim != 4:
        raise node.fail(f"filter has shape {list(filt.shape)}; it needs rank 4")
    strides, dilations = _window(node)
    channels = node.graph.shape(x)[1]
    size = node.graph.shape(x)[2:]
    args = {"strides": strides, "dilations": dilations,
            "pads": _pads(node, size, filt.shape[1:3], strides, dilations)}
    if node.op_type == "CONV_2D":                                 # OHWI
        weights = _filter(node, filt.transpose(0, 3, 1, 2))
        if channels % filt.shape[3]:
            raise node.fail(f"input has {channels} channels, not a multiple of the filter's "
                            f"{filt.shape[3]}")
        if channels // filt.shape[3] != 1:
            args["group"] = channels // filt.shape[3]
        node.produce_fused("Conv2D", _bias(node, 2, [x, weights]), args, "nchw")
        return
    # [1, KH, KW, C * M], output channel c * M + m.
    multiplier = filt.shape[3] // channels
    if multiplier * channels != filt.shape[3]:
        raise node.fail(f"filter has {filt.shape[3]} outputs for {channels} input channels")
    per_channel = filt.reshape(filt.shape[1], filt.shape[2], channels, multiplier)
    weights = _filter(node, per_channel.transpose(3, 2, 0, 1))
    node.produce_fused("DepthwiseConv2d", _bias(node, 2, [x, weights]), args, "nchw")


@converter("TRANSPOSE_CONV")
def transpose_conv(node: TfliteNode) -> None:
    out_shape = [int(v) for v in node.const(0, "output shape")]
    strides, _ = _window(node)
    _deconv(node, 2, 1, 3, out_shape[1:3], strides, int(node.option("Padding", _SAME)))


@converter("Convolution2DTransposeBias")
def transpose_conv_bias(node: TfliteNode) -> None:
    """MediaPipe's custom op: input, filter [O, KH, KW, I], bias; its custom
    options are three int32: padding (1 SAME, 2 VALID), stride W, stride H."""
    raw = node.op.custom_options
    if len(raw) < 12:
        raise node.fail(f"custom options of {len(raw)} bytes; 12 expected (padding, strides)")
    padding, stride_w, stride_h = (int(v) for v in np.frombuffer(raw[:12], "<i4"))
    if padding not in (1, 2) or min(stride_w, stride_h) < 1:
        raise node.fail(f"padding {padding} and strides {[stride_h, stride_w]} are invalid")
    size = node.tf_shape(0)[1:3]
    kernel = node.shape(1)[1:3]
    strides = [stride_h, stride_w]
    if padding == 1:
        out_hw = [size[i] * strides[i] for i in range(2)]
    else:
        out_hw = [(size[i] - 1) * strides[i] + kernel[i] for i in range(2)]
    _deconv(node, 0, 1, 2, out_hw, strides, _SAME if padding == 1 else _VALID)


def _deconv(node: TfliteNode, x_index: int, filter_index: int, bias_index: int,
            out_hw: list[int], strides: list[int], padding: int) -> None:
    filt = _float_const(node, filter_index, "filter")            # [O, KH, KW, I]
    x = node.nchw(x_index)
    size = node.graph.shape(x)[2:]
    pads, extra = [], []
    for axis in range(2):
        full = (size[axis] - 1) * strides[axis] + filt.shape[1 + axis]
        total = full - out_hw[axis]
        pads.append(max(total, 0))
        extra.append(max(-total, 0))
    if padding == _VALID and any(pads):
        raise node.fail(f"VALID padding with output size {out_hw} crops the result")
    args = {"strides": strides, "dilations": [1, 1],
            "pads": [pads[0] // 2, pads[1] // 2, pads[0] - pads[0] // 2,
                     pads[1] - pads[1] // 2]}
    if any(extra):
        args["output_padding"] = extra
    weights = _filter(node, filt.transpose(3, 0, 1, 2))
    node.produce_fused("Deconv2D", _bias(node, bias_index, [x, weights]), args, "nchw")


_POOLS = {"MAX_POOL_2D": 2, "AVERAGE_POOL_2D": 1}


@converter(*_POOLS)
def pool(node: TfliteNode) -> None:
    x = node.nchw(0)
    kernel = [int(node.option("FilterHeight", 1)), int(node.option("FilterWidth", 1))]
    strides, _ = _window(node)
    size = node.graph.shape(x)[2:]
    args = {"pooling_type": _POOLS[node.op_type], "kernels": kernel, "strides": strides,
            "pads": _pads(node, size, kernel, strides, [1, 1])}
    node.produce_fused("Pooling", [x], args, "nchw")


def _flat(node: TfliteNode, index: int, columns: int) -> str:
    """Input `index` as a [rows, columns] IR tensor (TFLite's own order)."""
    shape = node.tf_shape(index)
    if len(shape) == 2 and shape[1] == columns:
        return node.tf(index)
    total = int(np.prod(shape))
    if columns <= 0 or total % columns:
        raise node.fail(f"input of shape {list(shape)} does not flatten to rows of {columns}")
    return node.emit("Reshape", [node.tf(index)], {"shape": [total // columns,
                                                            columns]}).outputs[0]


@converter("FULLY_CONNECTED")
def fully_connected(node: TfliteNode) -> None:
    if int(node.option("WeightsFormat", 0)) != 0:
        raise node.fail("shuffled weights formats are not supported")
    columns = node.shape(1)[1]
    rows = list(node.tf_shape(0))
    out_shape = rows[:-1] + [node.shape(1)[0]] if node.option("KeepNumDims", False) \
        else [int(np.prod(rows)) // max(columns, 1), node.shape(1)[0]]
    if not node.is_const(1):
        a = _flat(node, 0, columns)
        product = node.emit("MatMul", [a, node.tf(1)], {"transpose_b": 1}).outputs[0]
        if node.has_input(2):
            product = node.emit("Eltwise", [product, node.tensor(2)],
                                {"type": SUM}).outputs[0]
        _finish_fc(node, product, out_shape)
        return
    weights = _float_const(node, 1, "weights")
    x = _flat(node, 0, weights.shape[1])
    inputs = _bias(node, 2, [x, _filter(node, weights)])
    if len(out_shape) == 2:
        node.produce_fused("FullyConnected", inputs)
        return
    _finish_fc(node, node.emit("FullyConnected", inputs).outputs[0], out_shape)


def _finish_fc(node: TfliteNode, product: str, out_shape: list[int]) -> None:
    fused = int(node.option("FusedActivationFunction", 0))
    if fused:
        source = node.emit("Reshape", [product], {"shape": out_shape}).outputs[0]
        node.produce_fused("Identity", [source])
        return
    node.produce("Reshape", [product], {"shape": out_shape})


@converter("BATCH_MATMUL")
def batch_matmul(node: TfliteNode) -> None:
    args = {"transpose_a": int(bool(node.option("AdjX", False))),
            "transpose_b": int(bool(node.option("AdjY", False)))}
    node.produce("MatMul", [node.tf(0), node.tf(1)], args)


_ELTWISE = {"ADD": SUM, "SUB": SUB, "MUL": PROD, "DIV": DIV, "MAXIMUM": MAX, "MINIMUM": MIN,
            "POW": POW, "FLOOR_DIV": DIV, "SQUARED_DIFFERENCE": 8}


def _nchw_operand(node: TfliteNode, index: int) -> str:
    if not node.is_const(index):
        return node.inputs[index]
    value = node.const(index)
    value = value.reshape((1,) * (4 - value.ndim) + value.shape)
    return node.weight(node.inputs[index] + "/nchw", np.transpose(value, TO_NCHW))


@converter(*_ELTWISE)
def binary(node: TfliteNode) -> None:
    args = {"type": _ELTWISE[node.op_type]}
    op_type = "Eltwise"
    tensors = [i for i in range(2) if not node.is_const(i)]
    consts = [i for i in range(2) if node.is_const(i)]
    layouts = {node.layout(i) for i in tensors}
    layout = "nchw" if layouts == {"nchw"} and all(node.rank(i) == 4 for i in tensors) and \
        all(node.rank(i) <= 4 for i in consts) else "tf"
    if consts and node.const(consts[0]).size == 1 and tensors:
        args["scalar_input"] = float(node.const(consts[0]).reshape(-1)[0])
        args["scalar_input_index"] = consts[0]
        inputs = [node.inputs[tensors[0]] if layout == "nchw" else node.tf(tensors[0])]
    else:
        inputs = [_nchw_operand(node, i) if layout == "nchw" else node.tf(i) for i in range(2)]
    if node.op_type == "FLOOR_DIV":
        quotient = node.emit(op_type, inputs, args).outputs[0]
        node.produce("Unary", [quotient], {"type": "FLOOR"}, layout)
        return
    node.produce_fused(op_type, inputs, args, layout)


_ACTIVATIONS = {"RELU": "RELU", "RELU6": "RELU6", "LOGISTIC": "SIGMOID", "TANH": "TANH",
                "HARD_SWISH": "HARDSWISH", "RELU_N1_TO_1": "RELU_N1_TO_1"}


@converter(*_ACTIVATIONS)
def activation(node: TfliteNode) -> None:
    node.activate(node.kept(0), _ACTIVATIONS[node.op_type], node.layout(0))


# Element-wise functions of one tensor: (engine op, args).
_UNARY = {"ABS": ("Eltwise", {"type": 7}), "NEG": ("Eltwise", {"type": 6}),
          "EXP": ("Unary", {"type": "EXP"}), "LOG": ("Unary", {"type": "LOG"}),
          "FLOOR": ("Unary", {"type": "FLOOR"}), "CEIL": ("Unary", {"type": "CEIL"}),
          "ROUND": ("Unary", {"type": "ROUND"}), "SIN": ("Unary", {"type": "SIN"}),
          "COS": ("Unary", {"type": "COS"}), "SQRT": ("Eltwise", {"type": POW,
                                                                 "scalar_input": 0.5}),
          "RSQRT": ("Eltwise", {"type": POW, "scalar_input": -0.5}),
          "SQUARE": ("Eltwise", {"type": POW, "scalar_input": 2.0}),
          "ELU": ("Unary", {"type": "ELU"})}


@converter("QUANTIZE", "DEQUANTIZE")
def quantize(node: TfliteNode) -> None:
    """Activations hold real values: QUANTIZE is its output's rounding
    (added by the frontend), DEQUANTIZE a no-op."""
    node.produce("Identity", [node.kept(0)], layout=node.layout(0))


@converter(*_UNARY)
def unary(node: TfliteNode) -> None:
    op_type, args = _UNARY[node.op_type]
    node.produce(op_type, [node.kept(0)], dict(args), node.layout(0))


@converter("GELU")
def gelu(node: TfliteNode) -> None:
    kind = "GELU_TANH" if node.option("Approximate", False) else "GELU"
    node.produce("Unary", [node.kept(0)], {"type": kind}, node.layout(0))


@converter("ADD_N")
def add_n(node: TfliteNode) -> None:
    total = node.tf(0)
    for index in range(1, len(node.inputs) - 1):
        total = node.emit("Eltwise", [total, node.tf(index)], {"type": SUM}).outputs[0]
    node.produce("Eltwise", [total, node.tf(len(node.inputs) - 1)], {"type": SUM})


@converter("LOCAL_RESPONSE_NORMALIZATION")
def local_response_norm(node: TfliteNode) -> None:
    """x / (bias + alpha * sum of x^2 over channels c - radius .. c + radius)^beta."""
    node.produce("LocalResponseNorm", [node.nchw(0)], {
        "depth_radius": int(node.option("Radius", 5)), "bias": float(node.option("Bias", 1.0)),
        "alpha": float(node.option("Alpha", 1.0)), "beta": float(node.option("Beta", 0.5))},
        "nchw")


@converter("LEAKY_RELU")
def leaky_relu(node: TfliteNode) -> None:
    node.produce("Activation", [node.kept(0)],
                 {"activation": "LEAKYRELU",
                  "activation_coefficient": float(node.option("Alpha", 0.2))}, node.layout(0))


@converter("PRELU")
def prelu(node: TfliteNode) -> None:
    alpha = _float_const(node, 1, "alpha")
    shape = node.tf_shape(0)
    full = np.broadcast_to(alpha, alpha.shape[:0] + tuple(shape[len(shape) - alpha.ndim:]))
    per_channel = full.reshape(-1, shape[-1])
    if np.any(per_channel != per_channel[:1]):
        raise node.fail(f"alpha of shape {list(alpha.shape)} varies within a channel; "
                        "per-channel alpha is supported")
    slope = node.weight(node.inputs[1], per_channel[0].astype(np.float32))
    if node.layout(0) == "nchw" or len(shape) == 2:
        node.produce("Activation", [node.kept(0), slope], {"activation": "PRELU"},
                     node.layout(0))
        return
    # The engine's PRELU reads channels on axis 1: take the NCHW form.
    if len(shape) != 4:
        raise node.fail(f"PRELU of a rank {len(shape)} tensor is supported for rank 2 and 4")
    node.produce("Activation", [node.nchw(0), slope], {"activation": "PRELU"}, "nchw")


@converter("SOFTMAX", "LOG_SOFTMAX")
def softmax(node: TfliteNode) -> None:
    beta = float(node.option("Beta", 1.0))
    layout = node.layout(0)
    source = node.inputs[0] if layout == "nchw" else node.tf(0)
    if beta != 1.0:
        source = node.emit("Eltwise", [source], {"type": PROD, "scalar_input": beta}).outputs[0]
    axis = 1 if layout == "nchw" else node.rank(0) - 1
    args = {"axis": axis, "use_log": 1} if node.op_type == "LOG_SOFTMAX" else {"axis": axis}
    node.produce("Softmax", [source], args, layout)


@converter("L2_NORMALIZATION")
def l2_normalization(node: TfliteNode) -> None:
    """x / sqrt(max(sum(x^2) over the last axis, 1e-6)), as TFLite computes it."""
    x = node.tf(0)
    axis = node.rank(0) - 1
    square = node.emit("Eltwise", [x, x], {"type": PROD}).outputs[0]
    total = node.emit("Reduce", [square], {"reduce_type": 4, "axis": [axis],
                                           "keepdims": 1}).outputs[0]
    floor = node.emit("Eltwise", [total], {"type": MAX, "scalar_input": 1e-6}).outputs[0]
    norm = node.emit("Eltwise", [floor], {"type": POW, "scalar_input": 0.5}).outputs[0]
    node.produce_fused("Eltwise", [x, norm], {"type": DIV})


# Converters in other modules register themselves in CONVERTERS on import.
from mace_converter.frontends import tflite_tensor  # noqa: E402,F401
from mace_converter.frontends import tflite_signal  # noqa: E402,F401
from mace_converter.frontends import tflite_argmax_pool  # noqa: E402,F401
from mace_converter.frontends import tflite_variables  # noqa: E402

tflite_variables.register(converter)
