"""Small TensorFlow functions that TFLiteConverter turns into models using
each TFLite op the frontend converts. Weights come from a fixed seed (0)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np


@dataclass
class Case:
    name: str
    build: Callable        # (tf, generator) -> function of the inputs
    shapes: Sequence[Sequence[int]]
    ops: Sequence[str]     # TFLite ops the written model must contain
    fused: Sequence[int] = ()   # fused activations (ActivationFunctionType) it must use
    dynamic: bool = False       # every dimension of the signature left open


def _w(g: np.random.Generator, *shape: int, scale: float = 0.3) -> np.ndarray:
    return (g.standard_normal(shape) * scale).astype(np.float32)


def _convolutions(tf, g):
    w1, b1 = _w(g, 3, 3, 3, 8), _w(g, 8)
    w2, b2 = _w(g, 3, 3, 8, 2), _w(g, 16)
    w3 = _w(g, 1, 1, 16, 8)
    wt, bt = _w(g, 3, 3, 4, 8), _w(g, 4)
    wg = _w(g, 3, 3, 4, 8)

    def fn(x):
        y = tf.nn.relu(tf.nn.conv2d(x, w1, 1, "SAME") + b1)
        d = tf.nn.relu6(tf.nn.depthwise_conv2d(y, w2, [1, 2, 2, 1], "SAME") + b2)
        c = tf.nn.conv2d(d, w3, 1, "VALID", dilations=1)
        c = tf.clip_by_value(c, -1.0, 1.0)
        t = tf.nn.conv2d_transpose(c, wt, [1, 16, 16, 4], 2, "SAME") + bt
        t = tf.tanh(t)
        grouped = tf.nn.conv2d(tf.concat([t, t], -1), wg, 1, "VALID", dilations=2)
        return t, grouped
    return fn


def _matmul(tf, g):
    w, b = _w(g, 12, 6), _w(g, 6)

    def fn(x, a, c):
        fc = tf.nn.relu(tf.matmul(tf.reshape(x, [2, 12]), w) + b)
        return fc, tf.matmul(a, c, transpose_b=True)
    return fn


def _elementwise(tf, g):
    w, k = _w(g, 1, 1, 3, 4), _w(g, 4)

    def fn(x, y):
        c = tf.nn.conv2d(x, w, 1, "SAME")             # NCHW inside the engine
        s = tf.nn.relu(c + k)
        d = tf.nn.relu6(c - y)
        m = (c * y) / (tf.abs(y) + 1.0)
        mx = tf.maximum(c, y) + tf.minimum(c, 0.25)
        p = tf.pow(tf.abs(c) + 0.5, y)
        q = tf.math.floordiv(c * 4.0, tf.abs(y) + 0.5)
        return s, d, m, mx, p, q
    return fn


def _unary(tf, g):
    def fn(x, y):
        pos = tf.abs(x) + 0.25
        return (-x, tf.exp(x), tf.math.log(pos), tf.floor(x * 3.0), tf.math.ceil(x * 3.0),
                tf.round(x * 3.0), tf.sin(x), tf.cos(x), tf.sqrt(pos), tf.math.rsqrt(pos),
                tf.square(x), tf.math.squared_difference(x, y),
                tf.clip_by_value(y, -1.0, 1.0))
    return fn


def _pooling(tf, g):
    def fn(x):
        a = tf.nn.avg_pool2d(x, 3, 2, "SAME")
        b = tf.nn.relu6(tf.nn.max_pool2d(x, 2, 2, "VALID") * 3.0)
        return a, b, tf.nn.max_pool2d(x, [3, 2], [1, 2], "SAME")
    return fn


def _reductions(tf, g):
    w = _w(g, 1, 1, 3, 6)

    def fn(x):
        c = tf.nn.conv2d(x, w, 1, "SAME")
        return (tf.reduce_mean(c, [1, 2]), tf.reduce_sum(c, [3], keepdims=True),
                tf.reduce_max(c, [1], keepdims=False), tf.reduce_min(c, [2, 3]),
                tf.reduce_prod(c * 0.5 + 1.0, [2], keepdims=True))
    return fn


def _shapes(tf, g):
    w = _w(g, 1, 1, 4, 8)

    def fn(x):
        c = tf.nn.conv2d(x, w, 1, "SAME")                        # [1, 6, 6, 8]
        r = tf.reshape(c, [1, 36, 8])
        sq = tf.squeeze(tf.reduce_mean(c, [1], keepdims=True), [1])   # [1, 6, 8]
        e = tf.expand_dims(sq, 2)                                # [1, 6, 1, 8]
        t = tf.transpose(r, [0, 2, 1])
        cat = tf.concat([c, x * 2.0], axis=3)
        st = tf.stack([sq, sq * 2.0], axis=1)
        u0, u1, u2 = tf.unstack(c[:, :3, 0, :], axis=1)
        s0, s1 = tf.split(c, 2, axis=3)
        v0, v1, v2 = tf.split(c, [1, 2, 3], axis=1)
        return r, e, t, cat, st, u0 + u1 * u2, s0 - s1, v0, v1 * 2.0, v2
    return fn


def _slicing(tf, g):
    def fn(x):
        a = x[:, 1:5:2, ::-1, 1:]
        b = x[0, 2, :, 3]                       # shrink axes
        c = tf.slice(x, [0, 1, 0, 1], [1, 3, -1, 2])
        d = tf.gather(x, [2, 0, 3], axis=3)
        e = tf.gather(x, [1, 2], axis=1)
        f = tf.reverse(x, [2])
        p = tf.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]])
        q = tf.pad(x, [[0, 0], [1, 0], [2, 1], [1, 1]], constant_values=0.5)
        return a, b, c, d, e, f, p, q
    return fn


def _spatial(tf, g):
    w = _w(g, 1, 1, 4, 8)

    def fn(x):
        c = tf.nn.conv2d(x, w, 1, "SAME")                      # [1, 4, 6, 8]
        d2s = tf.nn.depth_to_space(c, 2)
        s2d = tf.nn.space_to_depth(c, 2)
        outs = [d2s, s2d]
        for align, half in ((False, False), (True, False), (False, True)):
            outs.append(tf.compat.v1.image.resize_bilinear(
                c, [7, 11], align_corners=align, half_pixel_centers=half))
            outs.append(tf.compat.v1.image.resize_nearest_neighbor(
                c, [9, 10], align_corners=align, half_pixel_centers=half))
        return tuple(outs)
    return fn


def _activations(tf, g):
    w = _w(g, 1, 1, 3, 5)
    alpha = np.abs(_w(g, 5))
    prelu_layer = tf.keras.layers.PReLU(shared_axes=[1, 2],
                                        alpha_initializer=tf.constant_initializer(alpha))

    def fn(x):
        c = tf.nn.conv2d(x, w, 1, "SAME")
        prelu = prelu_layer(c)
        return (tf.sigmoid(c), tf.tanh(x), tf.nn.relu(x), tf.nn.relu6(x),
                c * tf.nn.relu6(c + 3.0) / 6.0, prelu, tf.nn.leaky_relu(c, 0.15),
                tf.nn.softmax(c * 2.0), tf.nn.l2_normalize(c, -1),
                tf.nn.softmax(tf.reshape(x, [1, -1]) * 0.5))
    return fn


def _more(tf, g):
    w = _w(g, 1, 1, 3, 6)

    def fn(x):
        c = tf.nn.conv2d(x, w, 1, "SAME")                      # [1, 5, 6, 6]
        return (tf.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], mode="REFLECT"),
                tf.pad(c, [[0, 0], [1, 1], [2, 0], [0, 0]], mode="SYMMETRIC"),
                tf.cast(tf.argmax(c, axis=3), tf.float32),
                tf.tile(x, [1, 2, 1, 3]),
                tf.nn.log_softmax(c * 2.0), tf.nn.elu(c * 3.0), tf.nn.gelu(c),
                tf.nn.gelu(c * 2.0, approximate=True),
                tf.nn.local_response_normalization(c, 2, 1.5, 0.3, 0.6),
                tf.math.add_n([c, c * 2.0, tf.abs(c)]))
    return fn


def _computed_shapes(tf, g):
    def fn(x):
        n = tf.shape(x)[1]
        ramp = tf.cast(tf.range(0, n, 1), tf.float32)
        lifted = tf.expand_dims(x * ramp, 1)
        return lifted, tf.squeeze(lifted * 2.0, [1])
    return fn


CASES = [
    Case("convolutions", _convolutions, [[1, 16, 16, 3]],
         ["CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "TANH"], fused=[1, 2, 3]),
    Case("matmul", _matmul, [[2, 3, 4], [2, 3, 5], [2, 6, 5]],
         ["FULLY_CONNECTED", "BATCH_MATMUL", "RESHAPE"], fused=[1]),
    Case("elementwise", _elementwise, [[1, 5, 6, 3], [1, 5, 6, 4]],
         ["ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "POW", "FLOOR_DIV"], fused=[1, 3]),
    Case("unary", _unary, [[2, 3, 4], [2, 3, 4]],
         ["NEG", "EXP", "LOG", "FLOOR", "CEIL", "ROUND", "SIN", "COS", "SQRT", "RSQRT",
          "SQUARE", "ABS", "SQUARED_DIFFERENCE", "RELU_N1_TO_1"]),
    Case("pooling", _pooling, [[1, 9, 10, 3]], ["AVERAGE_POOL_2D", "MAX_POOL_2D"]),
    Case("reductions", _reductions, [[1, 5, 7, 3]],
         ["MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"]),
    Case("shapes", _shapes, [[1, 6, 6, 4]],
         ["RESHAPE", "TRANSPOSE", "CONCATENATION", "PACK",
          "UNPACK", "SPLIT", "SPLIT_V"]),
    Case("slicing", _slicing, [[1, 6, 5, 4]],
         ["STRIDED_SLICE", "SLICE", "GATHER", "REVERSE_V2", "PAD", "PADV2"]),
    Case("spatial", _spatial, [[1, 4, 6, 4]],
         ["DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"]),
    Case("activations", _activations, [[1, 4, 5, 3]],
         ["LOGISTIC", "TANH", "RELU", "RELU6", "HARD_SWISH", "PRELU", "LEAKY_RELU",
          "SOFTMAX", "L2_NORMALIZATION"]),
    Case("more", _more, [[1, 5, 6, 3]],
         ["MIRROR_PAD", "ARG_MAX", "TILE", "LOG_SOFTMAX", "ELU", "GELU",
          "LOCAL_RESPONSE_NORMALIZATION", "ADD_N"]),
    Case("computed_shapes", _computed_shapes, [[1, 5]],
         ["SHAPE", "RANGE", "CAST", "EXPAND_DIMS", "SQUEEZE"], dynamic=True),
]
