"""ShuffleNet v2 (x1.0), Inception v3 and a DeepLab v3 segmentation net
(MobileNet v2 trunk at output stride 16, ASPP, bilinear upsampling), written
the way PyTorch's exporter writes them, with seeded random weights."""
from __future__ import annotations

import numpy as np
import onnx

from zoo.classic import CLASSES, mobilenet_v2_features
from zoo.onnx_net import OnnxNet


def _dims_of(net: OnnxNet, x: str, indices: list[int]) -> list[str]:
    """Shape -> Gather -> Unsqueeze per dimension, as the exporter traces
    x.size(i)."""
    shape = net.node("Shape", [x])
    dims = []
    for index in indices:
        position = net.const(net.unique("idx"), np.array(index, np.int64))
        dim = net.node("Gather", [shape, position], axis=0)
        axes = net.const(net.unique("axes"), np.array([0], np.int64))
        dims.append(net.node("Unsqueeze", [dim, axes]))
    return dims


def channel_shuffle(net: OnnxNet, x: str, groups: int) -> str:
    """view(b, groups, c / groups, h, w) -> transpose(1, 2) -> view(b, c, h, w)."""
    channels = net.channels[x]
    batch, height, width = _dims_of(net, x, [0, 2, 3])
    g = net.const(net.unique("groups"), np.array([groups], np.int64))
    per = net.const(net.unique("per_group"), np.array([channels // groups], np.int64))
    five = net.node("Concat", [batch, g, per, height, width], axis=0)
    y = net.node("Reshape", [x, five])
    y = net.node("Transpose", [y], perm=[0, 2, 1, 3, 4])
    minus_one = net.const(net.unique("minus_one"), np.array([-1], np.int64))
    four = net.node("Concat", [batch, minus_one, height, width], axis=0)
    return net.node("Reshape", [y, four], channels)


def _shuffle_unit(net: OnnxNet, x: str, out_c: int, stride: int) -> str:
    branch = out_c // 2
    if stride == 1:
        left, right = net.node("Split", [x], None, outputs=2, axis=1)
        net.channels[left] = net.channels[right] = net.channels[x] // 2
    else:
        left = net.conv_bn(x, net.channels[x], 3, stride, 1, groups=net.channels[x], act=None)
        left = net.conv_bn(left, branch, 1)
        right = x
    y = net.conv_bn(right, branch, 1)
    y = net.conv_bn(y, branch, 3, stride, 1, groups=branch, act=None)
    y = net.conv_bn(y, branch, 1)
    return channel_shuffle(net, net.concat([left, y]), 2)


def shufflenet_v2_x1_0(size: int = 224, seed: int = 6) -> onnx.ModelProto:
    net = OnnxNet("shufflenet_v2_x1_0", seed, [1, 3, size, size])
    x = net.conv_bn("input", 24, 3, 2, 1)
    x = net.max_pool(x, 3, 2, 1)
    for repeats, out_c in zip((4, 8, 4), (116, 232, 464)):
        for r in range(repeats):
            x = _shuffle_unit(net, x, out_c, 2 if r == 0 else 1)
    x = net.conv_bn(x, 1024, 1)
    axes = [2, 3]
    x = net.node("ReduceMean", [x], 1024, axes=axes, keepdims=0)
    name = net.unique("fc")
    weight = net.rng.standard_normal((CLASSES, 1024)) * np.sqrt(1.0 / 1024)
    bias = net.rng.standard_normal(CLASSES) * 0.05
    logits = net.node("Gemm", [x, net.const(name + ".weight", weight.astype(np.float32)),
                               net.const(name + ".bias", bias.astype(np.float32))], transB=1)
    return net.model(logits, [1, CLASSES])


# ---- Inception v3 -----------------------------------------------------------------
def _bc(net: OnnxNet, x: str, out_c: int, kernel, stride: int = 1, pad=0) -> str:
    """BasicConv2d: conv without bias, BatchNorm (eps 0.001), ReLU."""
    return net.conv_bn(x, out_c, kernel, stride, pad, eps=1e-3)


def _inception_a(net, x, pool_features):
    b1 = _bc(net, x, 64, 1)
    b5 = _bc(net, _bc(net, x, 48, 1), 64, 5, pad=2)
    b3 = _bc(net, _bc(net, _bc(net, x, 64, 1), 96, 3, pad=1), 96, 3, pad=1)
    bp = _bc(net, net.avg_pool(x, 3, 1, 1), pool_features, 1)
    return net.concat([b1, b5, b3, bp])


def _inception_b(net, x):
    b3 = _bc(net, x, 384, 3, 2)
    bd = _bc(net, _bc(net, _bc(net, x, 64, 1), 96, 3, pad=1), 96, 3, 2)
    return net.concat([b3, bd, net.max_pool(x, 3, 2)])


def _inception_c(net, x, c7):
    b1 = _bc(net, x, 192, 1)
    b7 = _bc(net, _bc(net, _bc(net, x, c7, 1), c7, (1, 7), pad=(0, 3)), 192, (7, 1), pad=(3, 0))
    bd = _bc(net, x, c7, 1)
    for out_c, kernel, pad in ((c7, (7, 1), (3, 0)), (c7, (1, 7), (0, 3)),
                               (c7, (7, 1), (3, 0)), (192, (1, 7), (0, 3))):
        bd = _bc(net, bd, out_c, kernel, pad=pad)
    bp = _bc(net, net.avg_pool(x, 3, 1, 1), 192, 1)
    return net.concat([b1, b7, bd, bp])


def _inception_d(net, x):
    b3 = _bc(net, _bc(net, x, 192, 1), 320, 3, 2)
    b7 = _bc(net, x, 192, 1)
    b7 = _bc(net, _bc(net, b7, 192, (1, 7), pad=(0, 3)), 192, (7, 1), pad=(3, 0))
    b7 = _bc(net, b7, 192, 3, 2)
    return net.concat([b3, b7, net.max_pool(x, 3, 2)])


def _inception_e(net, x):
    b1 = _bc(net, x, 320, 1)
    b3 = _bc(net, x, 384, 1)
    b3 = net.concat([_bc(net, b3, 384, (1, 3), pad=(0, 1)), _bc(net, b3, 384, (3, 1), pad=(1, 0))])
    bd = _bc(net, _bc(net, x, 448, 1), 384, 3, pad=1)
    bd = net.concat([_bc(net, bd, 384, (1, 3), pad=(0, 1)), _bc(net, bd, 384, (3, 1), pad=(1, 0))])
    bp = _bc(net, net.avg_pool(x, 3, 1, 1), 192, 1)
    return net.concat([b1, b3, bd, bp])


def inception_v3(size: int = 299, seed: int = 7) -> onnx.ModelProto:
    net = OnnxNet("inception_v3", seed, [1, 3, size, size])
    x = _bc(net, "input", 32, 3, 2)
    x = _bc(net, x, 32, 3)
    x = _bc(net, x, 64, 3, pad=1)
    x = net.max_pool(x, 3, 2)
    x = _bc(net, x, 80, 1)
    x = _bc(net, x, 192, 3)
    x = net.max_pool(x, 3, 2)
    for pool_features in (32, 64, 64):
        x = _inception_a(net, x, pool_features)
    x = _inception_b(net, x)
    for c7 in (128, 160, 160, 192):
        x = _inception_c(net, x, c7)
    x = _inception_d(net, x)
    x = _inception_e(net, x)
    x = _inception_e(net, x)
    return net.model(net.classifier(x, CLASSES, dropout=True), [1, CLASSES])


# ---- DeepLab v3 -------------------------------------------------------------------
def _resize_like(net: OnnxNet, x: str, like: str) -> str:
    """F.interpolate(x, size=like.shape[-2:], mode="bilinear",
    align_corners=False) as exported: the sizes come from Shape arithmetic."""
    shape = net.node("Shape", [like])
    starts = net.const(net.unique("starts"), np.array([2], np.int64))
    ends = net.const(net.unique("ends"), np.array([4], np.int64))
    spatial = net.node("Slice", [shape, starts, ends])
    head = net.node("Slice", [net.node("Shape", [x]), net.const(net.unique("starts"),
                                                                np.array([0], np.int64)),
                              starts])
    sizes = net.node("Concat", [head, spatial], axis=0)
    return net.node("Resize", [x, "", "", sizes], net.channels[x], mode="linear",
                    coordinate_transformation_mode="half_pixel")


def deeplab_v3(size: int = 512, seed: int = 8, classes: int = 21) -> onnx.ModelProto:
    net = OnnxNet("deeplab_v3", seed, [1, 3, size, size])
    features = mobilenet_v2_features(net, output_stride=16)
    branches = [net.conv_bn(features, 256, 1)]
    for rate in (6, 12, 18):
        branches.append(net.conv_bn(features, 256, 3, 1, rate, dilation=rate))
    pooled = net.node("GlobalAveragePool", [features], net.channels[features])
    pooled = net.conv_bn(pooled, 256, 1)
    branches.append(_resize_like(net, pooled, features))
    x = net.conv_bn(net.concat(branches), 256, 1)
    x = net.node("Dropout", [x], 256)
    x = net.conv_bn(x, 256, 3, 1, 1)
    logits = net.conv(x, classes, 1, bias=True, gain=1.0)
    out = _resize_like(net, logits, "input")
    return net.model(out, [1, classes, size, size])
