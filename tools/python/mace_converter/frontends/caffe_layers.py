"""Caffe layer converters."""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.caffe_frontend import CaffeLayer
from mace_converter.frontends.node import registry
from mace_converter.numpy_ops.tensor import MAX, PROD, SUM

CONVERTERS, converter = registry()


def _pair(values, single_h: int, single_w: int, has_h: bool, default: int) -> list[int]:
    """Caffe's repeated field or its _h/_w pair, as [h, w]."""
    if has_h:
        return [single_h, single_w]
    values = list(values)
    if not values:
        return [default, default]
    return [values[0], values[-1]]


def _conv_window(layer: CaffeLayer, param) -> dict:
    kernel = _pair(param.kernel_size, param.kernel_h, param.kernel_w,
                   param.HasField("kernel_h"), 1)
    stride = _pair(param.stride, param.stride_h, param.stride_w, param.HasField("stride_h"), 1)
    pad = _pair(param.pad, param.pad_h, param.pad_w, param.HasField("pad_h"), 0)
    dilation = _pair(param.dilation, 0, 0, False, 1)
    return {"kernel": kernel, "strides": stride, "pads": [pad[0], pad[1], pad[0], pad[1]],
            "dilations": dilation}


@converter("Convolution", "Deconvolution")
def convolution(layer: CaffeLayer) -> None:
    param = layer.layer.convolution_param
    if param.axis != 1:
        raise layer.fail("only axis 1 (NCHW channels) is supported")
    window = _conv_window(layer, param)
    kernel = window.pop("kernel")
    channels = layer.shape(0)[1]
    group = int(param.group)
    out_c = int(param.num_output)
    transposed = layer.op_type == "Deconvolution"
    shape = [channels, out_c // group] if transposed else [out_c, channels // group]
    weights = layer.blob(0, "weights").reshape(shape + kernel)
    inputs = [layer.tensor(0)]
    op_type = "Deconv2D" if transposed else "Conv2D"
    if not transposed and group > 1 and group == channels and weights.shape[1] == 1:
        multiplier = out_c // channels
        weights = weights.reshape(channels, multiplier, *kernel).transpose(1, 0, 2, 3)
        op_type = "DepthwiseConv2d"
    elif group != 1:
        window["group"] = group
    inputs.append(layer.weight(layer.name + "/weights", weights))
    if param.bias_term:
        inputs.append(layer.weight(layer.name + "/bias",
                                   layer.blob(1, "bias").reshape(-1)))
    layer.finish(op_type, inputs, window)


@converter("Pooling")
def pooling(layer: CaffeLayer) -> None:
    param = layer.layer.pooling_param
    if param.pool not in (0, 1):
        raise layer.fail("only MAX and AVE pooling are supported")
    args = {"pooling_type": 2 if param.pool == 0 else 1}
    if param.global_pooling:
        args["global"] = 1
    else:
        kernel = [param.kernel_h, param.kernel_w] if param.HasField("kernel_h") \
            else [param.kernel_size] * 2
        stride = [param.stride_h, param.stride_w] if param.HasField("stride_h") \
            else [param.stride] * 2
        pad = [param.pad_h, param.pad_w] if param.HasField("pad_h") or \
            param.HasField("pad_w") else [param.pad] * 2
        # Caffe rounds the output size up and averages over the padded window.
        args.update(kernels=kernel, strides=stride, pads=[pad[0], pad[1], pad[0], pad[1]],
                    ceil_mode=1)
        if param.pool == 1:
            args["count_include_pad"] = 1
    layer.finish("Pooling", [layer.tensor(0)], args)


@converter("InnerProduct")
def inner_product(layer: CaffeLayer) -> None:
    param = layer.layer.inner_product_param
    if param.axis != 1:
        raise layer.fail("only axis 1 is supported")
    shape = layer.shape(0)
    features = int(np.prod(shape[1:]))
    out = int(param.num_output)
    weights = layer.blob(0, "weights")
    weights = weights.reshape(features, out).T if param.transpose \
        else weights.reshape(out, features)
    source = layer.tensor(0)
    if len(shape) != 2:
        source = layer.emit("Reshape", [source], {"shape": [shape[0], features]}).outputs[0]
    inputs = [source, layer.weight(layer.name + "/weights", weights)]
    if param.bias_term:
        inputs.append(layer.weight(layer.name + "/bias", layer.blob(1, "bias").reshape(-1)))
    layer.finish("FullyConnected", inputs)


def _activation(layer: CaffeLayer, kind: str, **extra) -> None:
    args = {"activation": kind}
    args.update(extra)
    layer.finish("Activation", [layer.tensor(0)], args)


@converter("ReLU")
def relu(layer: CaffeLayer) -> None:
    slope = float(layer.layer.relu_param.negative_slope)
    if slope:
        _activation(layer, "LEAKYRELU", activation_coefficient=slope)
    else:
        _activation(layer, "RELU")


@converter("ReLU6")
def relu6(layer: CaffeLayer) -> None:
    _activation(layer, "RELU6")


@converter("Sigmoid")
def sigmoid(layer: CaffeLayer) -> None:
    _activation(layer, "SIGMOID")


@converter("TanH")
def tanh(layer: CaffeLayer) -> None:
    _activation(layer, "TANH")


@converter("PReLU")
def prelu(layer: CaffeLayer) -> None:
    slope = layer.blob(0, "slope").reshape(-1)
    channels = layer.shape(0)[1]
    if slope.size == 1:
        slope = np.full(channels, slope[0], np.float32)
    alpha = layer.weight(layer.name + "/slope", slope)
    layer.finish("Activation", [layer.tensor(0), alpha], {"activation": "PRELU"})


@converter("BatchNorm")
def batch_norm(layer: CaffeLayer) -> None:
    mean, var = layer.blob(0, "mean").reshape(-1), layer.blob(1, "variance").reshape(-1)
    factor = float(layer.blob(2, "scale factor").reshape(-1)[0]) if len(layer.weights) > 2 \
        else 1.0
    factor = 0.0 if factor == 0 else 1.0 / factor
    eps = float(layer.layer.batch_norm_param.eps)
    scale = 1.0 / np.sqrt(var.astype(np.float64) * factor + eps)
    offset = -mean.astype(np.float64) * factor * scale
    layer.finish("BatchNorm", [layer.tensor(0),
                               layer.weight(layer.name + "/scale", scale.astype(np.float32)),
                               layer.weight(layer.name + "/offset", offset.astype(np.float32))])


@converter("Scale")
def scale(layer: CaffeLayer) -> None:
    param = layer.layer.scale_param
    if len(layer.layer.bottom) > 1:
        raise layer.fail("Scale by a second bottom blob is not supported")
    if param.axis != 1 or param.num_axes != 1:
        raise layer.fail("only per-channel Scale (axis 1, num_axes 1) is supported")
    gamma = layer.blob(0, "scale").reshape(-1)
    beta = layer.blob(1, "bias").reshape(-1) if param.bias_term else np.zeros_like(gamma)
    layer.finish("BatchNorm", [layer.tensor(0), layer.weight(layer.name + "/scale", gamma),
                               layer.weight(layer.name + "/offset", beta)])


@converter("Eltwise")
def eltwise(layer: CaffeLayer) -> None:
    param = layer.layer.eltwise_param
    kind = {0: PROD, 1: SUM, 2: MAX}[param.operation]
    coeff = list(param.coeff)
    if coeff and (kind != SUM or len(coeff) != len(layer.inputs)):
        raise layer.fail("coeff needs the SUM operation and one value per bottom")
    source = layer.tensor(0)
    for index in range(1, len(layer.inputs)):
        args: dict = {"type": kind}
        if coeff and coeff != [1.0] * len(coeff):
            args["coeff"] = [coeff[0] if index == 1 else 1.0, coeff[index]]
        if index == len(layer.inputs) - 1:
            source = layer.finish("Eltwise", [source, layer.tensor(index)], args)
        else:
            source = layer.emit("Eltwise", [source, layer.tensor(index)], args).outputs[0]


@converter("Concat")
def concat(layer: CaffeLayer) -> None:
    param = layer.layer.concat_param
    axis = param.axis if param.HasField("axis") or not param.HasField("concat_dim") \
        else param.concat_dim
    axis %= len(layer.shape(0))
    layer.finish("Concat", [layer.tensor(i) for i in range(len(layer.inputs))], {"axis": axis})


@converter("Softmax")
def softmax(layer: CaffeLayer) -> None:
    axis = layer.layer.softmax_param.axis % len(layer.shape(0))
    layer.finish("Softmax", [layer.tensor(0)], {"axis": axis})


@converter("Dropout")
def dropout(layer: CaffeLayer) -> None:
    layer.finish("Identity", [layer.tensor(0)])


@converter("Split")
def split(layer: CaffeLayer) -> None:
    for top in layer.layer.top:
        layer.importer.blobs[top] = layer.inputs[0]


@converter("LRN")
def lrn(layer: CaffeLayer) -> None:
    param = layer.layer.lrn_param
    if param.norm_region != 0:
        raise layer.fail("only ACROSS_CHANNELS LRN is supported")
    size = int(param.local_size)
    if size % 2 == 0:
        raise layer.fail(f"local_size {size} must be odd")
    layer.finish("LocalResponseNorm", [layer.tensor(0)], {
        "depth_radius": (size - 1) // 2, "bias": float(param.k),
        "alpha": float(param.alpha) / size, "beta": float(param.beta)})


@converter("Flatten")
def flatten(layer: CaffeLayer) -> None:
    param = layer.layer.flatten_param
    shape = layer.shape(0)
    axis, end = param.axis % len(shape), param.end_axis % len(shape)
    merged = [int(np.prod(shape[axis:end + 1]))]
    layer.finish("Reshape", [layer.tensor(0)],
                 {"shape": list(shape[:axis]) + merged + list(shape[end + 1:])})


@converter("Reshape")
def reshape(layer: CaffeLayer) -> None:
    param = layer.layer.reshape_param
    if param.axis != 0 or param.num_axes != -1:
        raise layer.fail("only whole-shape Reshape (axis 0, num_axes -1) is supported")
    shape = layer.shape(0)
    target = [shape[i] if d == 0 else int(d) for i, d in enumerate(param.shape.dim)]
    if -1 in target:
        known = int(np.prod([d for d in target if d != -1]))
        target[target.index(-1)] = int(np.prod(shape)) // max(known, 1)
    layer.finish("Reshape", [layer.tensor(0)], {"shape": target})


def _continuation(layer: CaffeLayer) -> None:
    """Caffe multiplies the previous state by cont_t (0 starts a new
    sequence); the engine's ops carry the state through every step. So the
    layer converts only for sequences that start at step 0 and run to the
    end: cont must be left out of the model's inputs, which stands for cont
    0 (or 1) at the first step and 1 at every other step, and 1 at the first
    step too when expose_hidden feeds initial states."""
    name = layer.layer.bottom[1]
    if name in layer.importer.blobs:
        raise layer.fail(f"its cont bottom '{name}' is an input or a computed blob whose "
                         "values are unknown at conversion; the engine's recurrent ops cannot "
                         "restart a sequence part-way. Leave cont out of the deployment "
                         "file's inputs to convert the layer for whole sequences (cont 1 at "
                         "every step after the first)")


def _sequence_input(layer: CaffeLayer) -> tuple[str, int, int, int]:
    """(x as [T, N, features], T, N, features): Caffe's recurrent layers
    flatten every axis of x after the second."""
    shape = layer.shape(0)
    if len(shape) < 3:
        raise layer.fail(f"x has shape {list(shape)} but needs [T, N, ...] with rank 3 or more")
    steps, batch, size = shape[0], shape[1], int(np.prod(shape[2:]))
    x = layer.tensor(0)
    if len(shape) != 3:
        x = layer.emit("Reshape", [x], {"shape": [steps, batch, size]}).outputs[0]
    return x, steps, batch, size


def _recurrent_bottoms(layer: CaffeLayer, states: int) -> bool:
    """Checks the bottoms (x, cont, then the initial states with
    expose_hidden) and returns expose_hidden."""
    expose = bool(layer.layer.recurrent_param.expose_hidden)
    wanted = 2 + (states if expose else 0)
    names = "x, cont" + (", h_0, c_0" if states == 2 else ", h_0") * expose
    if len(layer.layer.bottom) != wanted:
        raise layer.fail(f"has {len(layer.layer.bottom)} bottoms but needs {wanted} ({names}); "
                         "a static input bottom is not supported")
    if len(layer.layer.top) != 1 + (states if expose else 0):
        raise layer.fail(f"has {len(layer.layer.top)} tops but needs "
                         f"{1 + (states if expose else 0)}")
    _continuation(layer)
    return expose


def _state_bottom(layer: CaffeLayer, index: int, batch: int, hidden: int) -> str:
    shape = tuple(layer.shape(index))
    if shape != (1, batch, hidden):
        raise layer.fail(f"bottom '{layer.layer.bottom[index]}' has shape {list(shape)} but the "
                         f"initial state needs [1, {batch}, {hidden}]")
    return layer.tensor(index)


def _set_top(layer: CaffeLayer, top: int, tensor: str) -> None:
    layer.importer.blobs[layer.layer.top[top]] = tensor


@converter("LSTM")
def lstm(layer: CaffeLayer) -> None:
    """Caffe's LSTM (LSTMUnit's gate order i, f, o, g; blobs W_xc [4H, I],
    b_c [4H], W_hc [4H, H]) as one MACE LSTM op with the gates in the
    engine's order i, o, f, c."""
    hidden = int(layer.layer.recurrent_param.num_output)
    if hidden <= 0:
        raise layer.fail("recurrent_param num_output must be set")
    expose = _recurrent_bottoms(layer, 2)
    x, steps, batch, size = _sequence_input(layer)
    order = np.concatenate([np.arange(k * hidden, (k + 1) * hidden) for k in (0, 2, 1, 3)])
    w = layer.blob(0, "W_xc").reshape(4 * hidden, size)[order]
    bias = layer.blob(1, "b_c").reshape(4 * hidden)[order]
    r = layer.blob(2, "W_hc").reshape(4 * hidden, hidden)[order]
    inputs = [x, layer.weight(layer.name + "/W", w[None]), layer.weight(layer.name + "/R", r[None]),
              layer.weight(layer.name + "/B", np.concatenate([bias, np.zeros_like(bias)])[None])]
    outputs = [layer.graph.unique_name(layer.name + "/sequence")]
    if expose:
        inputs += ["", _state_bottom(layer, 2, batch, hidden),
                   _state_bottom(layer, 3, batch, hidden)]
        outputs += [layer.graph.unique_name(name) for name in layer.layer.top[1:3]]
    layer.emit("LSTM", inputs, {"hidden_size": hidden}, outputs=outputs)
    for top, tensor in enumerate(outputs[1:], start=1):
        _set_top(layer, top, tensor)
    layer.finish("Reshape", [outputs[0]], {"shape": [steps, batch, hidden]})


@converter("RNN")
def rnn(layer: CaffeLayer) -> None:
    """Caffe's RNN (blobs W_xh [H, I], b_h [H], W_hh [H, H], W_ho [H, H],
    b_o [H]): h_t = tanh(W_xh x_t + b_h + W_hh h_{t-1}) is one MACE RNN op,
    and the output o_t = tanh(W_ho h_t + b_o) a FullyConnected and a Tanh
    over every step at once."""
    hidden = int(layer.layer.recurrent_param.num_output)
    if hidden <= 0:
        raise layer.fail("recurrent_param num_output must be set")
    expose = _recurrent_bottoms(layer, 1)
    x, steps, batch, size = _sequence_input(layer)
    w_xh = layer.blob(0, "W_xh").reshape(hidden, size)
    b_h = layer.blob(1, "b_h").reshape(hidden)
    w_hh = layer.blob(2, "W_hh").reshape(hidden, hidden)
    w_ho = layer.blob(3, "W_ho").reshape(hidden, hidden)
    b_o = layer.blob(4, "b_o").reshape(hidden)
    inputs = [x, layer.weight(layer.name + "/W", w_xh[None]),
              layer.weight(layer.name + "/R", w_hh[None]),
              layer.weight(layer.name + "/B", np.concatenate([b_h, np.zeros_like(b_h)])[None])]
    outputs = [layer.graph.unique_name(layer.name + "/sequence")]
    if expose:
        inputs += ["", _state_bottom(layer, 2, batch, hidden)]
        outputs.append(layer.graph.unique_name(layer.layer.top[1]))
        _set_top(layer, 1, outputs[1])
    layer.emit("RNN", inputs, {"hidden_size": hidden}, outputs=outputs)
    rows = layer.emit("Reshape", [outputs[0]], {"shape": [steps * batch, hidden]}).outputs[0]
    projected = layer.emit("FullyConnected", [
        rows, layer.weight(layer.name + "/W_ho", w_ho),
        layer.weight(layer.name + "/b_o", b_o)]).outputs[0]
    squashed = layer.emit("Activation", [projected], {"activation": "TANH"}).outputs[0]
    layer.finish("Reshape", [squashed], {"shape": [steps, batch, hidden]})
