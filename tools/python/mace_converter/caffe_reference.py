"""A numpy implementation of the Caffe layers the converter supports, run
straight from the .prototxt and .caffemodel. It is the source-framework
reference for validating converted Caffe models (Caffe itself is not
installable here), and shares nothing with the conversion path but the file
parsing: layers are written from Caffe's layer definitions, in NCHW, with
Caffe's own pooling arithmetic.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from mace_converter.frontends.caffe_frontend import in_test_phase, load_caffe

Layer = Callable[[object, list[np.ndarray], list[np.ndarray]], list[np.ndarray]]
_LAYERS: dict[str, Layer] = {}


def _layer(*names: str):
    def register(fn: Layer) -> Layer:
        for name in names:
            _LAYERS[name] = fn
        return fn
    return register


def _hw(repeated, h, w, has_h: bool, default: int) -> tuple[int, int]:
    if has_h:
        return int(h), int(w)
    values = list(repeated)
    return (int(values[0]), int(values[-1])) if values else (default, default)


def _conv_geometry(p):
    kernel = _hw(p.kernel_size, p.kernel_h, p.kernel_w, p.HasField("kernel_h"), 1)
    stride = _hw(p.stride, p.stride_h, p.stride_w, p.HasField("stride_h"), 1)
    pad = _hw(p.pad, p.pad_h, p.pad_w, p.HasField("pad_h"), 0)
    dilation = _hw(p.dilation, 0, 0, False, 1)
    return kernel, stride, pad, dilation


def _im2col(x, kernel, stride, pad, dilation):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - (dilation[0] * (kernel[0] - 1) + 1)) // stride[0] + 1
    ow = (w + 2 * pad[1] - (dilation[1] * (kernel[1] - 1) + 1)) // stride[1] + 1
    cols = np.empty((n, c, kernel[0], kernel[1], oh, ow))
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            y0, x0 = i * dilation[0], j * dilation[1]
            cols[:, :, i, j] = xp[:, :, y0:y0 + stride[0] * oh:stride[0],
                                  x0:x0 + stride[1] * ow:stride[1]]
    return cols, oh, ow


@_layer("Convolution")
def _convolution(layer, inputs, blobs):
    p = layer.convolution_param
    kernel, stride, pad, dilation = _conv_geometry(p)
    x = inputs[0]
    n, c = x.shape[:2]
    group, out_c = int(p.group), int(p.num_output)
    weights = blobs[0].reshape(out_c, c // group, kernel[0], kernel[1]).astype(np.float64)
    cols, oh, ow = _im2col(x, kernel, stride, pad, dilation)
    cols = cols.reshape(n, group, c // group * kernel[0] * kernel[1], oh * ow)
    w = weights.reshape(group, out_c // group, -1)
    y = np.einsum("gok,ngkp->ngop", w, cols).reshape(n, out_c, oh, ow)
    if p.bias_term:
        y = y + blobs[1].reshape(1, -1, 1, 1)
    return [y]


@_layer("Deconvolution")
def _deconvolution(layer, inputs, blobs):
    p = layer.convolution_param
    kernel, stride, pad, dilation = _conv_geometry(p)
    x = inputs[0]
    n, c, h, w = x.shape
    group, out_c = int(p.group), int(p.num_output)
    weights = blobs[0].reshape(c, out_c // group, kernel[0], kernel[1]).astype(np.float64)
    full_h = (h - 1) * stride[0] + dilation[0] * (kernel[0] - 1) + 1
    full_w = (w - 1) * stride[1] + dilation[1] * (kernel[1] - 1) + 1
    y = np.zeros((n, out_c, full_h, full_w))
    cg, og = c // group, out_c // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                part = np.einsum("nchw,co->nohw", xs, weights[g * cg:(g + 1) * cg, :, i, j])
                y0, x0 = i * dilation[0], j * dilation[1]
                y[:, g * og:(g + 1) * og, y0:y0 + (h - 1) * stride[0] + 1:stride[0],
                  x0:x0 + (w - 1) * stride[1] + 1:stride[1]] += part
    y = y[:, :, pad[0]:full_h - pad[0], pad[1]:full_w - pad[1]]
    if p.bias_term:
        y = y + blobs[1].reshape(1, -1, 1, 1)
    return [y]


@_layer("Pooling")
def _pooling(layer, inputs, blobs):
    p = layer.pooling_param
    x = inputs[0]
    n, c, h, w = x.shape
    if p.global_pooling:
        reduce = np.max if p.pool == 0 else np.mean
        return [reduce(x, axis=(2, 3), keepdims=True)]
    kh, kw = (p.kernel_h, p.kernel_w) if p.HasField("kernel_h") else (p.kernel_size,) * 2
    sh, sw = (p.stride_h, p.stride_w) if p.HasField("stride_h") else (p.stride,) * 2
    ph, pw = (p.pad_h, p.pad_w) if p.HasField("pad_h") or p.HasField("pad_w") else (p.pad,) * 2
    out_h = int(math.ceil((h + 2 * ph - kh) / sh)) + 1
    out_w = int(math.ceil((w + 2 * pw - kw) / sw)) + 1
    if ph or pw:
        out_h -= (out_h - 1) * sh >= h + ph
        out_w -= (out_w - 1) * sw >= w + pw
    y = np.zeros((n, c, out_h, out_w))
    for oy in range(out_h):
        for ox in range(out_w):
            hs, ws = oy * sh - ph, ox * sw - pw
            he, we = min(hs + kh, h + ph), min(ws + kw, w + pw)
            area = (he - hs) * (we - ws)
            window = x[:, :, max(hs, 0):min(he, h), max(ws, 0):min(we, w)]
            y[:, :, oy, ox] = window.max(axis=(2, 3)) if p.pool == 0 \
                else window.sum(axis=(2, 3)) / area
    return [y]


@_layer("InnerProduct")
def _inner_product(layer, inputs, blobs):
    p = layer.inner_product_param
    x = inputs[0].reshape(inputs[0].shape[0], -1)
    w = blobs[0].reshape(-1, x.shape[1]) if not p.transpose else blobs[0].reshape(x.shape[1], -1).T
    y = x @ w.T.astype(np.float64)
    return [y + blobs[1].reshape(1, -1) if p.bias_term else y]


@_layer("ReLU")
def _relu(layer, inputs, blobs):
    x = inputs[0]
    return [np.where(x > 0, x, x * layer.relu_param.negative_slope)]


_layer("ReLU6")(lambda layer, inputs, blobs: [np.clip(inputs[0], 0, 6)])
_layer("Sigmoid")(lambda layer, inputs, blobs: [1 / (1 + np.exp(-inputs[0]))])
_layer("TanH")(lambda layer, inputs, blobs: [np.tanh(inputs[0])])
_layer("Dropout")(lambda layer, inputs, blobs: [inputs[0]])
_layer("Split")(lambda layer, inputs, blobs: [inputs[0]] * len(layer.top))


@_layer("PReLU")
def _prelu(layer, inputs, blobs):
    x = inputs[0]
    slope = blobs[0].reshape(-1)
    slope = np.full(x.shape[1], slope[0]) if slope.size == 1 else slope
    return [np.where(x > 0, x, x * slope.reshape((1, -1) + (1,) * (x.ndim - 2)))]


def _per_channel(v: np.ndarray, ndim: int) -> np.ndarray:
    return v.reshape((1, -1) + (1,) * (ndim - 2)).astype(np.float64)


@_layer("BatchNorm")
def _batch_norm(layer, inputs, blobs):
    x = inputs[0]
    factor = float(blobs[2].reshape(-1)[0]) if len(blobs) > 2 else 1.0
    factor = 0.0 if factor == 0 else 1.0 / factor
    mean = _per_channel(blobs[0] * factor, x.ndim)
    var = _per_channel(blobs[1] * factor, x.ndim)
    return [(x - mean) / np.sqrt(var + layer.batch_norm_param.eps)]


@_layer("Scale")
def _scale(layer, inputs, blobs):
    x = inputs[0]
    y = x * _per_channel(blobs[0], x.ndim)
    return [y + _per_channel(blobs[1], x.ndim) if layer.scale_param.bias_term else y]


@_layer("Eltwise")
def _eltwise(layer, inputs, blobs):
    p = layer.eltwise_param
    if p.operation == 0:
        return [np.prod(np.stack(inputs), axis=0)]
    if p.operation == 2:
        return [np.max(np.stack(inputs), axis=0)]
    coeff = list(p.coeff) or [1.0] * len(inputs)
    return [sum(c * x for c, x in zip(coeff, inputs))]


@_layer("Concat")
def _concat(layer, inputs, blobs):
    p = layer.concat_param
    axis = p.axis if p.HasField("axis") or not p.HasField("concat_dim") else p.concat_dim
    return [np.concatenate(inputs, axis=axis)]


@_layer("Softmax")
def _softmax(layer, inputs, blobs):
    axis = layer.softmax_param.axis
    e = np.exp(inputs[0] - inputs[0].max(axis=axis, keepdims=True))
    return [e / e.sum(axis=axis, keepdims=True)]


@_layer("LRN")
def _lrn(layer, inputs, blobs):
    p = layer.lrn_param
    x = inputs[0]
    size, half = int(p.local_size), int(p.local_size) // 2
    padded = np.pad(x * x, ((0, 0), (half, half), (0, 0), (0, 0)))
    total = sum(padded[:, i:i + x.shape[1]] for i in range(size))
    return [x / (p.k + p.alpha / size * total) ** p.beta]


@_layer("Flatten")
def _flatten(layer, inputs, blobs):
    x = inputs[0]
    axis = layer.flatten_param.axis % x.ndim
    end = layer.flatten_param.end_axis % x.ndim
    return [x.reshape(x.shape[:axis] + (-1,) + x.shape[end + 1:])]


@_layer("Reshape")
def _reshape(layer, inputs, blobs):
    x = inputs[0]
    dims = [x.shape[i] if d == 0 else int(d) for i, d in enumerate(layer.reshape_param.shape.dim)]
    return [x.reshape(dims)]


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@_layer("LSTM")
def _lstm(layer, inputs, blobs):
    """Caffe's unrolled LSTM: per step, the gate input W_xc x_t + b_c +
    W_hc (cont_t h) and LSTMUnit's i, f, o, g, with f scaled by cont_t.
    Bottoms x [T, N, ...], cont [T, N] and, with expose_hidden, h_0 and c_0;
    tops the h of every step and then h_T and c_T."""
    hidden = int(layer.recurrent_param.num_output)
    x, cont = inputs[0], inputs[1]
    steps, batch = x.shape[:2]
    x = x.reshape(steps, batch, -1)
    w_xc = blobs[0].reshape(4 * hidden, -1).astype(np.float64)
    b_c = blobs[1].reshape(-1).astype(np.float64)
    w_hc = blobs[2].reshape(4 * hidden, hidden).astype(np.float64)
    expose = layer.recurrent_param.expose_hidden
    h = inputs[2].reshape(batch, hidden) if expose else np.zeros((batch, hidden))
    c = inputs[3].reshape(batch, hidden) if expose else np.zeros((batch, hidden))
    out = np.zeros((steps, batch, hidden))
    for t in range(steps):
        keep = cont[t].reshape(batch, 1)
        gates = x[t] @ w_xc.T + b_c + (keep * h) @ w_hc.T
        i, f, o = (_sigmoid(gates[:, k * hidden:(k + 1) * hidden]) for k in range(3))
        g = np.tanh(gates[:, 3 * hidden:])
        c = keep * f * c + i * g
        h = o * np.tanh(c)
        out[t] = h
    return [out] + ([h[None], c[None]] if expose else [])


@_layer("RNN")
def _rnn(layer, inputs, blobs):
    """Caffe's unrolled RNN: h_t = tanh(W_xh x_t + b_h + W_hh (cont_t
    h_{t-1})) and o_t = tanh(W_ho h_t + b_o). Bottoms x, cont and, with
    expose_hidden, h_0; tops o of every step and then h_T."""
    hidden = int(layer.recurrent_param.num_output)
    x, cont = inputs[0], inputs[1]
    steps, batch = x.shape[:2]
    x = x.reshape(steps, batch, -1)
    w_xh, b_h, w_hh, w_ho, b_o = (b.astype(np.float64) for b in blobs[:5])
    w_xh, w_hh, w_ho = w_xh.reshape(hidden, -1), w_hh.reshape(hidden, hidden), \
        w_ho.reshape(hidden, hidden)
    expose = layer.recurrent_param.expose_hidden
    h = inputs[2].reshape(batch, hidden) if expose else np.zeros((batch, hidden))
    out = np.zeros((steps, batch, hidden))
    for t in range(steps):
        h = np.tanh(x[t] @ w_xh.T + b_h.reshape(-1) + (cont[t].reshape(batch, 1) * h) @ w_hh.T)
        out[t] = np.tanh(h @ w_ho.T + b_o.reshape(-1))
    return [out] + ([h[None]] if expose else [])


def run_caffe(prototxt: Path, caffemodel: Optional[Path], inputs: Mapping[str, np.ndarray],
              outputs: Sequence[str]) -> dict[str, np.ndarray]:
    """Runs the net at inference (TEST phase) and returns the named blobs."""
    net, weights = load_caffe(Path(prototxt), Path(caffemodel) if caffemodel else None)
    blobs = {name: np.asarray(value, dtype=np.float64) for name, value in inputs.items()}
    for layer in net.layer:
        if layer.type == "Input" or not in_test_phase(layer):
            continue
        if layer.type not in _LAYERS:
            raise NotImplementedError(f"Caffe layer type {layer.type} ('{layer.name}') has no "
                                      "numpy implementation")
        results = _LAYERS[layer.type](layer, [blobs[b] for b in layer.bottom],
                                      weights.get(layer.name, []))
        for top, value in zip(layer.top, results):
            blobs[top] = value
    return {name: blobs[name].astype(np.float32) for name in outputs}
