"""TFLite converters for MediaPipe's custom ops MaxPoolingWithArgmax2D and
MaxUnpooling2D, which its segmentation models pair as encoder and decoder.

Both read their custom options as MediaPipe's kernels do: the raw bytes of
LiteRT's C struct TfLitePoolParams, six little-endian int32 (padding 1 SAME
or 2 VALID, stride W, stride H, filter W, filter H, fused activation), then
the padding the interpreter computes, which is ignored. The index output is
float32: the window-local position ky * filter W + kx of each maximum plus
0.1; the unpooling truncates it back. Since it counts inside the window and
not over the whole tensor, it means the same in the engine's NCHW layout,
and both ops keep their tensors NCHW.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mace_converter.frontends.tflite_frontend import TfliteNode
from mace_converter.frontends.tflite_ops import converter

_SAME, _VALID = 1, 2
# TfLiteFusedActivation values; LiteRT's CalculateActivationRange clamps
# for these three only, so the kernels compute TANH (4), SIGN_BIT (5) and
# SIGMOID (6) as no activation.
_CLAMPS = {1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}
_IGNORED = {4: "TANH", 5: "SIGN_BIT", 6: "SIGMOID"}


@dataclass
class PoolParams:
    padding: int
    stride: tuple[int, int]    # H, W
    filter: tuple[int, int]    # H, W
    activation: int


def pool_params(node: TfliteNode) -> PoolParams:
    raw = node.op.custom_options
    if len(raw) < 24:
        raise node.fail(f"custom options of {len(raw)} bytes; at least 24 expected "
                        "(MediaPipe's pool parameters: padding, strides, filter, activation)")
    padding, stride_w, stride_h, filter_w, filter_h, activation = \
        (int(v) for v in np.frombuffer(raw[:24], "<i4"))
    if min(stride_w, stride_h, filter_w, filter_h) < 1 or \
            max(stride_w, stride_h, filter_w, filter_h) > 1 << 20:
        raise node.fail(f"strides {[stride_h, stride_w]} and filter {[filter_h, filter_w]} "
                        "must be between 1 and 2^20")
    return PoolParams(padding, (stride_h, stride_w), (filter_h, filter_w), activation)


def _float_planes(node: TfliteNode, indices: list[int], what: str) -> None:
    for index in indices:
        tensor = node.model.tensors[index]
        if tensor.dtype != 0 or len(tensor.shape) != 4:
            raise node.fail(f"{what} '{tensor.name}' is {tensor.type_name} of shape "
                            f"{list(tensor.shape)}; MediaPipe's kernel takes 4-D float32 "
                            "tensors")


def pooled_size(node: TfliteNode, size: int, kernel: int, stride: int,
                padding: int) -> tuple[int, int, int]:
    """Output size and leading and trailing padding of one axis, as
    MediaPipe's kernel sizes it (TensorFlow's SAME and VALID, with the odd
    padded pixel at the end)."""
    if padding == _SAME:
        out = (size + stride - 1) // stride
    elif padding == _VALID:
        out = (size - kernel + stride) // stride
        if out < 1:
            raise node.fail(f"VALID padding with a filter of {kernel} over {size} pixels "
                            "leaves no output")
    else:
        raise node.fail(f"padding {padding} is not supported (1 SAME and 2 VALID are)")
    total = max((out - 1) * stride + kernel - size, 0)
    return out, total // 2, total - total // 2


@converter("MaxPoolingWithArgmax2D")
def max_pool_argmax(node: TfliteNode) -> None:
    params = pool_params(node)
    if len(node.inputs) != 1 or len(node.outputs) != 2:
        raise node.fail(f"{len(node.inputs)} inputs and {len(node.outputs)} outputs; "
                        "MediaPipe's kernel takes one input and two outputs")
    _float_planes(node, list(node.op.inputs) + list(node.op.outputs), "tensor")
    if params.activation in _IGNORED:
        raise node.fail(f"fused activation {_IGNORED[params.activation]} is not supported: "
                        "MediaPipe's kernel computes the op without it")
    if params.activation and params.activation not in _CLAMPS:
        raise node.fail(f"fused activation {params.activation} is unknown")
    x = node.nchw(0)
    size = node.graph.shape(x)[2:]
    axes = [pooled_size(node, size[a], params.filter[a], params.stride[a], params.padding)
            for a in range(2)]
    args = {"kernels": list(params.filter), "strides": list(params.stride),
            "pads": [axes[0][1], axes[1][1], axes[0][2], axes[1][2]]}
    indices = node.outputs[1]
    node.importer.layouts[indices] = "nchw"
    if not params.activation:
        node.emit("MaxPoolArgmax", [x], args, outputs=node.outputs)
        node.importer.layouts[node.outputs[0]] = "nchw"
        return
    raw = node.graph.unique_name(node.outputs[0] + "/pooled")
    node.emit("MaxPoolArgmax", [x], args, outputs=[raw, indices])
    node.activate(raw, _CLAMPS[params.activation], "nchw")


@converter("MaxUnpooling2D")
def max_unpool(node: TfliteNode) -> None:
    """MediaPipe's kernel ignores the padding and activation options: the
    output is the input's size times the filter's, and the window's leading
    padding is TensorFlow's for pooling that output back to the input's size."""
    params = pool_params(node)
    if len(node.inputs) != 2 or len(node.outputs) != 1:
        raise node.fail(f"{len(node.inputs)} inputs and {len(node.outputs)} outputs; "
                        "MediaPipe's kernel takes values and indices and one output")
    _float_planes(node, list(node.op.inputs) + list(node.op.outputs), "tensor")
    if node.tf_shape(0) != node.tf_shape(1):
        raise node.fail(f"values {list(node.tf_shape(0))} and indices "
                        f"{list(node.tf_shape(1))} differ in shape")
    x, where = node.nchw(0), node.nchw(1)
    size = node.graph.shape(x)[2:]
    out = [size[a] * params.filter[a] for a in range(2)]
    pads = [max(((size[a] - 1) * params.stride[a] + params.filter[a] - out[a]) // 2, 0)
            for a in range(2)]
    node.produce("MaxUnpool", [x, where], {
        "kernels": list(params.filter), "strides": list(params.stride), "pads": pads,
        "output_size": out}, "nchw")
