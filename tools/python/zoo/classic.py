"""MobileNet v1 and v2, SqueezeNet 1.1, ResNet-18 and ResNet-50, following
the published architectures (torchvision's layer layout for the ResNets and
SqueezeNet), with seeded random weights."""
from __future__ import annotations

import onnx

from zoo.onnx_net import OnnxNet

CLASSES = 1000


def mobilenet_v1(size: int = 224, seed: int = 1) -> onnx.ModelProto:
    net = OnnxNet("mobilenet_v1", seed, [1, 3, size, size])
    x = net.conv_bn("input", 32, 3, 2, 1, act="relu6")
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + \
        [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    for out_c, stride in blocks:
        x = net.conv_bn(x, net.channels[x], 3, stride, 1, groups=net.channels[x], act="relu6")
        x = net.conv_bn(x, out_c, 1, act="relu6")
    return net.model(net.classifier(x, CLASSES, softmax=True), [1, CLASSES])


# (expansion, out channels, repeats, first stride), from the MobileNet v2 paper.
V2_BLOCKS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
             (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def inverted_residual(net: OnnxNet, x: str, expansion: int, out_c: int, stride: int,
                      dilation: int = 1) -> str:
    in_c = net.channels[x]
    hidden = in_c * expansion
    y = x
    if expansion != 1:
        y = net.conv_bn(y, hidden, 1, act="relu6")
    y = net.conv_bn(y, hidden, 3, stride, dilation, groups=hidden, dilation=dilation,
                    act="relu6")
    y = net.conv_bn(y, out_c, 1, act=None, gamma=(0.2, 0.4))
    if stride == 1 and in_c == out_c:
        y = net.add(x, y)
    return y


def mobilenet_v2_features(net: OnnxNet, output_stride: int = 32) -> str:
    """The MobileNet v2 trunk; with output_stride 16 or 8 the later strides
    become dilations, as DeepLab v3 does."""
    x = net.conv_bn("input", 32, 3, 2, 1, act="relu6")
    current_stride, dilation = 2, 1
    for expansion, out_c, repeats, first_stride in V2_BLOCKS:
        for r in range(repeats):
            stride = first_stride if r == 0 else 1
            block_dilation = dilation
            if stride > 1 and current_stride >= output_stride:
                dilation *= stride
                stride = 1
            elif stride > 1:
                current_stride *= stride
            x = inverted_residual(net, x, expansion, out_c, stride, block_dilation)
    return x


def mobilenet_v2(size: int = 224, seed: int = 2) -> onnx.ModelProto:
    net = OnnxNet("mobilenet_v2", seed, [1, 3, size, size])
    x = mobilenet_v2_features(net)
    x = net.conv_bn(x, 1280, 1, act="relu6")
    return net.model(net.classifier(x, CLASSES, dropout=True), [1, CLASSES])


def _fire(net: OnnxNet, x: str, squeeze: int, expand: int) -> str:
    s = net.relu(net.conv(x, squeeze, 1, bias=True))
    left = net.relu(net.conv(s, expand, 1, bias=True))
    right = net.relu(net.conv(s, expand, 3, pad=1, bias=True))
    return net.concat([left, right])


def squeezenet1_1(size: int = 224, seed: int = 3) -> onnx.ModelProto:
    net = OnnxNet("squeezenet1_1", seed, [1, 3, size, size])
    x = net.relu(net.conv("input", 64, 3, 2, bias=True))
    x = net.max_pool(x, 3, 2, ceil=1)
    x = _fire(net, x, 16, 64)
    x = _fire(net, x, 16, 64)
    x = net.max_pool(x, 3, 2, ceil=1)
    x = _fire(net, x, 32, 128)
    x = _fire(net, x, 32, 128)
    x = net.max_pool(x, 3, 2, ceil=1)
    for squeeze, expand in ((48, 192), (48, 192), (64, 256), (64, 256)):
        x = _fire(net, x, squeeze, expand)
    x = net.node("Dropout", [x], net.channels[x])
    x = net.relu(net.conv(x, CLASSES, 1, bias=True))
    x = net.node("GlobalAveragePool", [x], CLASSES)
    x = net.flatten_torch_style(x)
    return net.model(x, [1, CLASSES])


def _basic_block(net: OnnxNet, x: str, out_c: int, stride: int) -> str:
    y = net.conv_bn(x, out_c, 3, stride, 1)
    y = net.conv_bn(y, out_c, 3, 1, 1, act=None, gamma=(0.2, 0.4))
    shortcut = x
    if stride != 1 or net.channels[x] != out_c:
        shortcut = net.conv_bn(x, out_c, 1, stride, act=None)
    return net.relu(net.add(y, shortcut))


def _bottleneck(net: OnnxNet, x: str, width: int, stride: int) -> str:
    out_c = width * 4
    y = net.conv_bn(x, width, 1)
    y = net.conv_bn(y, width, 3, stride, 1)
    y = net.conv_bn(y, out_c, 1, act=None, gamma=(0.2, 0.4))
    shortcut = x
    if stride != 1 or net.channels[x] != out_c:
        shortcut = net.conv_bn(x, out_c, 1, stride, act=None)
    return net.relu(net.add(y, shortcut))


def _resnet(name: str, layers: list[int], bottleneck: bool, size: int, seed: int
            ) -> onnx.ModelProto:
    net = OnnxNet(name, seed, [1, 3, size, size])
    x = net.conv_bn("input", 64, 7, 2, 3)
    x = net.max_pool(x, 3, 2, 1)
    for stage, (width, blocks) in enumerate(zip((64, 128, 256, 512), layers)):
        for block in range(blocks):
            stride = 2 if stage > 0 and block == 0 else 1
            x = _bottleneck(net, x, width, stride) if bottleneck else \
                _basic_block(net, x, width, stride)
    return net.model(net.classifier(x, CLASSES, torch_flatten=True), [1, CLASSES])


def resnet18(size: int = 224, seed: int = 4) -> onnx.ModelProto:
    return _resnet("resnet18", [2, 2, 2, 2], False, size, seed)


def resnet50(size: int = 224, seed: int = 5) -> onnx.ModelProto:
    return _resnet("resnet50", [3, 4, 6, 3], True, size, seed)
