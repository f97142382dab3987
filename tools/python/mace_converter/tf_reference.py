"""A numpy implementation of the TensorFlow ops the converter supports, run
straight from a frozen GraphDef in the graph's own layout (NHWC, or NCHW where
an op's data_format says so). It is the source-framework reference for
validating converted TensorFlow models when TensorFlow is not installed. It
shares only the GraphDef parsing with the converter; the ops are written from
TensorFlow's op definitions, and tests check them against TensorFlow itself.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from mace_converter import protos
from mace_converter.frontends.tf_const import CONST_EVALUATORS, attr_value

Op = Callable[[list[np.ndarray], dict], np.ndarray]
_OPS: dict[str, Op] = {}


def _op(*names: str):
    def register(fn: Op) -> Op:
        for name in names:
            _OPS[name] = fn
        return fn
    return register


_TO_NHWC, _TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)


def _image(fn: Op) -> Op:
    """Lets an NHWC implementation run NCHW ops too: the image and the
    per-dimension attributes move to NHWC, and the result moves back."""
    def run(inputs, attrs):
        data_format = attrs.get("data_format", "NHWC")
        if data_format == "NHWC":
            return fn(inputs, attrs)
        if data_format != "NCHW" or inputs[0].ndim != 4:
            raise NotImplementedError(f"{attrs['_op']} with data_format {data_format} on a "
                                      f"rank-{inputs[0].ndim} input")
        moved = dict(attrs, data_format="NHWC")
        for key in ("strides", "ksize", "dilations"):
            if attrs.get(key):
                moved[key] = [attrs[key][axis] for axis in _TO_NHWC]
        if attrs.get("explicit_paddings"):
            pairs = np.reshape(attrs["explicit_paddings"], (4, 2))
            moved["explicit_paddings"] = pairs[list(_TO_NHWC)].reshape(-1).tolist()
        image = np.transpose(inputs[0], _TO_NHWC)
        return np.transpose(fn([image] + list(inputs[1:]), moved), _TO_NCHW)
    return run


def _windows(x, ksize, strides, dilations, attrs, fill):
    """[n, oh, ow, kh, kw, c] windows (TensorFlow padding) and a mask of the
    positions that lie inside the input."""
    n, h, w, c = x.shape
    eff = [(k - 1) * d + 1 for k, d in zip(ksize, dilations)]
    padding = attrs.get("padding", "VALID")
    if padding == "SAME":
        pads = []
        for size, e, s in zip((h, w), eff, strides):
            total = max((-(-size // s) - 1) * s + e - size, 0)
            pads.append((total // 2, total - total // 2))
    elif padding == "EXPLICIT":
        explicit = attrs["explicit_paddings"]
        pads = [(explicit[2], explicit[3]), (explicit[4], explicit[5])]
    else:
        pads = [(0, 0), (0, 0)]
    xp = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)), constant_values=fill)
    inside = np.pad(np.ones((1, h, w, 1)), ((0, 0), pads[0], pads[1], (0, 0)))
    oh = (xp.shape[1] - eff[0]) // strides[0] + 1
    ow = (xp.shape[2] - eff[1]) // strides[1] + 1
    win = np.empty((n, oh, ow, ksize[0], ksize[1], c))
    mask = np.empty((1, oh, ow, ksize[0], ksize[1], 1))
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            rows = slice(i * dilations[0], i * dilations[0] + strides[0] * oh, strides[0])
            cols = slice(j * dilations[1], j * dilations[1] + strides[1] * ow, strides[1])
            win[:, :, :, i, j] = xp[:, rows, cols]
            mask[:, :, :, i, j] = inside[:, rows, cols]
    return win, mask


def _hw(attrs: dict, key: str) -> list[int]:
    return list(attrs.get(key) or [1, 1, 1, 1])[1:3]


@_op("Conv2D")
@_image
def _conv(inputs, attrs):
    x, w = inputs
    win, _ = _windows(x, w.shape[:2], _hw(attrs, "strides"), _hw(attrs, "dilations"), attrs, 0)
    groups = x.shape[3] // w.shape[2]
    cg, og = w.shape[2], w.shape[3] // groups
    outs = [np.einsum("nyxijc,ijco->nyxo", win[..., g * cg:(g + 1) * cg],
                      w[..., g * og:(g + 1) * og]) for g in range(groups)]
    return np.concatenate(outs, axis=3)


@_op("DepthwiseConv2dNative")
@_image
def _depthwise(inputs, attrs):
    x, w = inputs
    win, _ = _windows(x, w.shape[:2], _hw(attrs, "strides"), _hw(attrs, "dilations"), attrs, 0)
    out = np.einsum("nyxijc,ijcm->nyxcm", win, w)
    return out.reshape(out.shape[:3] + (-1,))


@_op("MaxPool", "AvgPool")
@_image
def _pool(inputs, attrs):
    fill = -np.inf if "Max" in attrs["_op"] else 0.0
    win, mask = _windows(inputs[0], _hw(attrs, "ksize"), _hw(attrs, "strides"), [1, 1],
                         attrs, fill)
    if fill:
        return win.max(axis=(3, 4))
    return win.sum(axis=(3, 4)) / mask.sum(axis=(3, 4))


@_op("BiasAdd")
def _bias_add(inputs, attrs):
    x, bias = inputs
    if attrs.get("data_format", "NHWC") == "NCHW":    # channels in dimension 1 at any rank
        return x + bias.reshape((-1,) + (1,) * (x.ndim - 2))
    return x + bias


@_op("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
@_image
def _batch_norm(inputs, attrs):
    x, scale, offset, mean, var = inputs[:5]
    return (x - mean) / np.sqrt(var + attrs.get("epsilon", 1e-4)) * scale + offset


_ELEMENTWISE: dict[str, Callable] = {
    "Relu": lambda x: np.maximum(x, 0), "Relu6": lambda x: np.clip(x, 0, 6),
    "Sigmoid": lambda x: 1 / (1 + np.exp(-x)), "Tanh": np.tanh,
    "Exp": np.exp, "Log": np.log, "Floor": np.floor, "Ceil": np.ceil, "Round": np.round,
    "Sign": np.sign, "Erf": np.vectorize(math.erf, otypes=[np.float64]),
    "Softplus": lambda x: np.logaddexp(0.0, x), "Softsign": lambda x: x / (1 + np.abs(x)),
    "Elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "Selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Asin": np.arcsin, "Acos": np.arccos,
    "Atan": np.arctan, "Sinh": np.sinh, "Cosh": np.cosh, "Asinh": np.arcsinh,
    "Acosh": np.arccosh, "Atanh": np.arctanh,
}
for _name, _fn in _ELEMENTWISE.items():
    _op(_name)(lambda inputs, attrs, fn=_fn: fn(inputs[0]))
_op("LeakyRelu")(lambda i, a: np.where(i[0] >= 0, i[0], i[0] * a.get("alpha", 0.2)))
_op("SquaredDifference")(lambda i, a: (i[0] - i[1]) ** 2)
_op("Softmax")(lambda i, a: _softmax(i[0]))
_op("StopGradient", "Snapshot")(lambda i, a: i[0])


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@_op("Mean", "Sum", "Max", "Min")
def _reduce(inputs, attrs):
    reduce = {"Mean": np.mean, "Sum": np.sum, "Max": np.max, "Min": np.min}[attrs["_op"]]
    axes = tuple(int(a) for a in np.atleast_1d(inputs[1]))
    return reduce(inputs[0], axis=axes, keepdims=bool(attrs.get("keep_dims", False)))


@_op("MatMul")
def _matmul(inputs, attrs):
    a, b = inputs
    a = a.T if attrs.get("transpose_a") else a
    b = b.T if attrs.get("transpose_b") else b
    return a @ b


@_op("Pad", "PadV2", "MirrorPad")
def _pad(inputs, attrs):
    widths = [tuple(int(v) for v in row) for row in inputs[1]]
    if attrs["_op"] == "MirrorPad":
        return np.pad(inputs[0], widths, mode="reflect" if attrs.get("mode") == "REFLECT"
                      else "symmetric")
    value = float(inputs[2]) if len(inputs) > 2 else 0.0
    return np.pad(inputs[0], widths, constant_values=value)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@_op("BlockLSTM", "BlockLSTMV2")
def _block_lstm(inputs, attrs):
    """TensorFlow's BlockLSTM (blocks i, ci, f, o) and BlockLSTMV2 (i, f, ci,
    o, no forget_bias): all seven outputs, each [time, batch, H], zero from
    step seq_len_max on."""
    limit, x, c, h, w, wci, wcf, wco, b = inputs
    v2 = attrs["_op"] == "BlockLSTMV2"
    hidden = h.shape[1]
    forget_bias = 0.0 if v2 else attrs.get("forget_bias", 1.0)
    clip = attrs.get("cell_clip", 0.0 if v2 else 3.0)
    peep = bool(attrs.get("use_peephole", False))
    names = "ifco" if v2 else "icfo"
    outputs = np.zeros((7,) + x.shape[:2] + (hidden,))
    for t in range(min(int(limit), x.shape[0])):
        z = np.concatenate([x[t], h], axis=1) @ w + b
        block = {name: z[:, k * hidden:(k + 1) * hidden] for k, name in enumerate(names)}
        i = _sigmoid(block["i"] + (wci * c if peep else 0))
        f = _sigmoid(block["f"] + forget_bias + (wcf * c if peep else 0))
        ci = np.tanh(block["c"])
        c = ci * i + c * f
        if clip > 0:
            c = np.clip(c, -clip, clip)
        o = _sigmoid(block["o"] + (wco * c if peep else 0))
        co = np.tanh(c)
        h = co * o
        outputs[:, t] = [i, c, f, o, ci, co, h]
    return list(outputs)


@_op("GRUBlockCell")
def _gru_block_cell(inputs, attrs):
    """TensorFlow's GRUBlockCell: outputs r, u, c and h, each [batch, H]."""
    x, h, w_ru, w_c, b_ru, b_c = inputs
    hidden = h.shape[1]
    ru = _sigmoid(np.concatenate([x, h], axis=1) @ w_ru + b_ru)
    r, u = ru[:, :hidden], ru[:, hidden:]
    c = np.tanh(np.concatenate([x, r * h], axis=1) @ w_c + b_c)
    return [r, u, c, u * h + (1 - u) * c]


def _evaluate(op: str, inputs: list[np.ndarray], attrs: dict) -> np.ndarray:
    attrs = dict(attrs, _op=op)
    if op in _OPS:
        return _OPS[op](inputs, attrs)
    if op in CONST_EVALUATORS:
        return CONST_EVALUATORS[op](inputs, attrs)
    raise NotImplementedError(f"TensorFlow op {op} has no numpy implementation")


def _tensor(name: str) -> str:
    return name[:-2] if name.endswith(":0") else name


def run_tensorflow(model: Path, inputs: Mapping[str, np.ndarray],
                   outputs: Sequence[str]) -> dict[str, np.ndarray]:
    """Evaluates the named outputs of a frozen graph for the given feeds."""
    graph = protos.load("tf_graph").GraphDef()
    graph.ParseFromString(Path(model).read_bytes())
    nodes = {node.name: node for node in graph.node}
    # Values by tensor: "node" for output 0, "node:k" for output k > 0.
    values = {_tensor(name): np.asarray(v, np.float64) for name, v in inputs.items()}

    def value(name: str) -> np.ndarray:
        pending = [name.split(":")[0]]
        while pending:
            current = pending[-1]
            if current in values:
                pending.pop()
                continue
            node = nodes[current]
            sources = [_tensor(s) for s in node.input if not s.startswith("^")]
            missing = [s.split(":")[0] for s in sources if s not in values]
            if missing:
                pending.extend(missing)
                continue
            attrs = {k: attr_value(v) for k, v in node.attr.items()}
            if node.op == "Const":
                values[current] = np.asarray(attrs["value"])
            elif node.op == "Shape":
                values[current] = np.array(values[sources[0]].shape, np.int32)
            else:
                result = _evaluate(node.op, [values[s] for s in sources], attrs)
                results = result if isinstance(result, list) else [result]
                for index, output in enumerate(results):
                    values[current if index == 0 else f"{current}:{index}"] = np.asarray(output)
            pending.pop()
        return values[_tensor(name)]

    return {name: value(name).astype(np.float32) for name in outputs}
