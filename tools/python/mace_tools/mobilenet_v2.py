"""MobileNet v2 (1.0, 224) built directly as a MACE model, with deterministic
weights, plus a numpy forward pass of the same network for validation.
"""
from __future__ import annotations

import numpy as np

from mace_tools import numpy_ref as ref
from mace_tools.builder import NetBuilder

# (expansion, out channels, repeats, first stride), from the MobileNet v2 paper.
BLOCKS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
          (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
NUM_CLASSES = 1000


class _Weights:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def conv(self, out_c: int, in_c: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        # He-style scale keeps activations in a sane range through 50 layers.
        scale = np.sqrt(2.0 / (in_c * k * k))
        w = (self.rng.standard_normal((out_c, in_c, k, k)) * scale).astype(np.float32)
        b = (self.rng.standard_normal(out_c) * 0.05).astype(np.float32)
        return w, b


def build(seed: int = 7, size: int = 224):
    """Returns (NetBuilder, layers) where layers drive the numpy reference."""
    weights = _Weights(seed)
    net = NetBuilder("mobilenet_v2")
    x = net.add_input("input", [1, 3, size, size])
    layers = []

    def conv(x: str, in_c: int, out_c: int, k: int, stride: int, groups: int, act: bool,
             spatial: int) -> tuple[str, int]:
        w, b = weights.conv(out_c, in_c // groups, k)
        pads = ref.same_pads(spatial, k, stride)
        name = net.unique("conv")
        if groups == 1:
            net.add_op("Conv2D",
                       [x, net.add_weight(name + "/w", w), net.add_weight(name + "/b", b)],
                       name + "/out", name=name, strides=[stride, stride], pads=list(pads),
                       activation="RELU6" if act else "NOOP")
        else:
            dw = w.reshape(1, in_c, k, k)
            net.add_op("DepthwiseConv2d",
                       [x, net.add_weight(name + "/w", dw), net.add_weight(name + "/b", b)],
                       name + "/out", name=name, strides=[stride, stride], pads=list(pads),
                       activation="RELU6" if act else "NOOP")
        layers.append(("conv", name, w, b, stride, pads, groups, act))
        return name + "/out", -(-spatial // stride)

    spatial = size
    x, spatial = conv(x, 3, 32, 3, 2, 1, True, spatial)
    channels = 32
    for expansion, out_c, repeats, first_stride in BLOCKS:
        for r in range(repeats):
            stride = first_stride if r == 0 else 1
            block_in = x
            hidden = channels * expansion
            y = x
            if expansion != 1:
                y, _ = conv(y, channels, hidden, 1, 1, 1, True, spatial)
            y, spatial = conv(y, hidden, hidden, 3, stride, hidden, True, spatial)
            y, _ = conv(y, hidden, out_c, 1, 1, 1, False, spatial)
            if stride == 1 and channels == out_c:
                out = net.unique("add")
                net.add_op("Eltwise", [block_in, y], out, name=out, type=0)
                layers.append(("add_from", block_in, y, out))
                y = out
            x, channels = y, out_c
    x, _ = conv(x, channels, 1280, 1, 1, 1, True, spatial)
    net.add_op("Pooling", [x], "pool", name="pool", pooling_type=1, **{"global": 1})
    fc_w = (weights.rng.standard_normal((NUM_CLASSES, 1280)) * np.sqrt(1 / 1280)).astype(np.float32)
    fc_b = np.zeros(NUM_CLASSES, np.float32)
    net.add_op("FullyConnected", ["pool", net.add_weight("fc/w", fc_w),
                                  net.add_weight("fc/b", fc_b)], "logits", name="fc")
    net.add_op("Softmax", ["logits"], "prob4d", name="softmax", axis=1)
    net.add_op("Reshape", ["prob4d"], "output", name="flatten", shape=[1, NUM_CLASSES])
    net.add_output("output", [1, NUM_CLASSES])
    layers.append(("head", fc_w, fc_b))
    return net, layers


def reference(layers, image: np.ndarray) -> np.ndarray:
    """The numpy forward pass of the network `build` made."""
    values = {}
    x = image.astype(np.float64)
    for layer in layers:
        if layer[0] == "conv":
            _, name, w, b, stride, pads, groups, act = layer
            x = ref.conv2d(x, w, b, stride, pads, groups)
            if act:
                x = ref.relu6(x)
            values[name + "/out"] = x
        elif layer[0] == "add_from":
            _, block_in, y, out = layer
            first = image if block_in == "input" else values[block_in]
            x = first + values[y]
            values[out] = x
        else:
            _, fc_w, fc_b = layer
            pooled = x.mean(axis=(2, 3))
            x = ref.softmax(pooled @ fc_w.T.astype(np.float64) + fc_b, axis=1)
    return x
