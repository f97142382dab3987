"""ONNX converters: convolutions, pooling, normalization, dense layers and
activations."""
from __future__ import annotations

import copy
import math
from typing import Callable, Optional

import numpy as np

from mace_converter import geometry
from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import (activation, converter, eltwise, float_input,
                                                  scalar_or_none, spatial_2d, window_pads)
from mace_converter.frontends.onnx_common import CONVERTERS
from mace_converter.frontends.onnx_common import computed as _computed
from mace_converter.numpy_ops.tensor import MAX, MIN


def _window_attrs(node: Node, kernel: list[int]) -> dict:
    strides = node.ints("strides", [1, 1])
    dilations = node.ints("dilations", [1, 1])
    if len(kernel) != 2 or len(strides) != 2 or len(dilations) != 2:
        raise node.fail("only 2D windows are supported")
    pads = window_pads(node, node.shape(0)[2:], kernel, strides, dilations)
    return {"strides": strides, "dilations": dilations, "pads": pads}


def _lift_1d(node: Node, convert: Callable[[Node], None]) -> None:
    """Converts a window op over [N, C, L] (1-D Conv, ConvTranspose, MaxPool,
    AveragePool) with its 2-D converter: the input is viewed as
    [N, C, 1, L], the window attributes and the weights get a leading
    height of one, and the [N, C', 1, L'] result is viewed as [N, C', L'].
    The 2-D kernels then do the work, fast paths included."""
    n, channels, length = node.shape(0)
    lifted = copy.copy(node)
    lifted.inputs = list(node.inputs)
    lifted.inputs[0] = node.emit("Reshape", [node.tensor(0)],
                                 {"shape": [n, channels, 1, length]}).outputs[0]
    attrs = dict(node.attrs)
    for key, lead in (("kernel_shape", 1), ("strides", 1), ("dilations", 1),
                      ("output_padding", 0), ("output_shape", 1)):
        if key in attrs:
            values = [int(v) for v in attrs[key]]
            if len(values) != 1:
                raise node.fail(f"{key} {values} must have one value for a 1D window")
            attrs[key] = [lead] + values
    if "pads" in attrs:
        pads = [int(v) for v in attrs["pads"]]
        if len(pads) != 2:
            raise node.fail(f"pads {pads} must have 2 values for a 1D window")
        attrs["pads"] = [0, pads[0], 0, pads[1]]
    lifted.attrs = attrs
    if node.op_type in ("Conv", "ConvTranspose"):
        w_shape = node.shape(1)
        if len(w_shape) != 3:
            raise node.fail(f"weights have shape {list(w_shape)}; a 1D window needs rank 3")
        lifted_shape = [w_shape[0], w_shape[1], 1, w_shape[2]]
        if node.known(1):
            name = node.graph.unique_name(node.inputs[1] + "/2d")
            node.values[name] = node.const(1, "weights").reshape(lifted_shape)
        else:   # computed weights: reshaped at run time
            name = node.emit("Reshape", [node.tensor(1)], {"shape": lifted_shape}).outputs[0]
        lifted.inputs[1] = name
    # Every output (MaxPool's Indices too) comes out [N, C', 1, L'].
    present = [name for name in node.outputs if name]
    results = [node.graph.unique_name(name + "/2d") for name in present]
    lifted.outputs = results
    convert(lifted)
    for result, name in zip(results, present):
        shape = node.graph.shape(result)
        node.emit("Reshape", [result], {"shape": [shape[0], shape[1], shape[3]]},
                  outputs=[name])


def _windowed(convert: Callable[[Node], None]) -> Callable[[Node], None]:
    """`convert` for rank-4 inputs, and for rank-3 ones through _lift_1d."""
    def dispatch(node: Node) -> None:
        if node.rank(0) == 3:
            _lift_1d(node, convert)
        else:
            convert(node)
    dispatch.__name__ = convert.__name__
    return dispatch


@converter("Conv")
@_windowed
def conv(node: Node) -> None:
    if node.rank(0) == 5:
        _conv_3d(node)
        return
    spatial_2d(node)
    if not node.known(1):
        _conv_computed_weights(node)
        return
    weights = node.const(1, "weights").astype(np.float32)
    if weights.ndim != 4:
        raise node.fail(f"weights have shape {list(weights.shape)}; only 2D convolution "
                        "is supported")
    channels = node.shape(0)[1]
    group = int(node.attr("group", 1))
    args = _window_attrs(node, list(weights.shape[2:]))
    bias = node.optional_const(2, "bias") if node.known(2) else None
    inputs = [node.tensor(0)]
    if group > 1 and group == channels and weights.shape[1] == 1:
        multiplier = weights.shape[0] // channels
        filt = weights.reshape(channels, multiplier, *weights.shape[2:]).transpose(1, 0, 2, 3)
        inputs.append(node.weight(node.inputs[1], filt))
        op_type = "DepthwiseConv2d"
    else:
        inputs.append(node.tensor(1))
        op_type = "Conv2D"
        if group != 1:
            args["group"] = group
    if bias is not None or _computed(node, 2):
        inputs.append(node.tensor(2))
    node.emit_out(op_type, inputs, args)


def _pads_3d(node: Node, kernel: list[int], strides: list[int],
             dilations: list[int]) -> list[int]:
    """A 3-D window's pads, all begins then all ends (ONNX's order), from
    pads or auto_pad."""
    auto_pad = node.attr("auto_pad", "NOTSET")
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pairs = [geometry.same_pads(size, k, s, dil, auto_pad == "SAME_LOWER")
                 for size, k, s, dil in zip(node.shape(0)[2:], kernel, strides, dilations)]
        pads = [p[0] for p in pairs] + [p[1] for p in pairs]
    elif auto_pad in ("NOTSET", "VALID"):
        pads = node.ints("pads", [0] * 6) if auto_pad == "NOTSET" else [0] * 6
    else:
        raise node.fail(f"auto_pad '{auto_pad}' is not supported")
    if len(pads) != 6 or min(pads) < 0:
        raise node.fail(f"pads {pads} must be 6 values, none negative, for a 3D window")
    return pads


def _conv_3d(node: Node) -> None:
    """Conv over [N, C, D, H, W]: a Conv3D reading the OIDHW weights (a
    constant or a tensor computed at run time) as they are."""
    w_shape = list(node.shape(1))
    if len(w_shape) != 5:
        raise node.fail(f"weights have shape {w_shape}; a 3D convolution needs rank 5")
    kernel = w_shape[2:]
    given = node.ints("kernel_shape")
    if given and list(given) != kernel:
        raise node.fail(f"kernel_shape {given} does not match the weights {w_shape}")
    strides = node.ints("strides", [1, 1, 1])
    dilations = node.ints("dilations", [1, 1, 1])
    if len(strides) != 3 or len(dilations) != 3:
        raise node.fail(f"strides {strides} and dilations {dilations} must have 3 values "
                        "for a 3D window")
    args = {"strides": strides, "dilations": dilations,
            "pads": _pads_3d(node, kernel, strides, dilations)}
    group = int(node.attr("group", 1))
    if group != 1:
        args["group"] = group
    inputs = [node.tensor(0), node.tensor(1)]
    if node.has_input(2) and (_computed(node, 2) or node.optional_const(2, "bias") is not None):
        inputs.append(node.tensor(2))
    node.emit_out("Conv3D", inputs, args)


def _conv_computed_weights(node: Node) -> None:
    """A Conv whose weights are computed at run time: a Conv2D (grouped if
    need be) that reads its filter, OIHW as ONNX has it, from a tensor."""
    w_shape = node.shape(1)
    if len(w_shape) != 4:
        raise node.fail(f"weights have shape {list(w_shape)}; only 2D convolution "
                        "is supported")
    args = _window_attrs(node, list(w_shape[2:]))
    group = int(node.attr("group", 1))
    if group != 1:
        args["group"] = group
    inputs = [node.tensor(0), node.tensor(1)]
    if node.has_input(2) and (_computed(node, 2) or node.optional_const(2) is not None):
        inputs.append(node.tensor(2))
    node.emit_out("Conv2D", inputs, args)


@converter("ConvTranspose")
@_windowed
def conv_transpose(node: Node) -> None:
    """2-D ConvTranspose becomes Deconv2D, 3-D Deconv3D (1-D goes through
    _lift_1d). Both take ONNX's pads order (all begins, then all ends)."""
    if node.rank(0) not in (4, 5):
        raise node.fail(f"input has shape {list(node.shape(0))}; only 1D, 2D and 3D "
                        "transposed convolution is supported")
    rank = node.rank(0) - 2
    w_shape = node.shape(1)   # a constant or a tensor computed at run time
    if len(w_shape) != rank + 2:
        raise node.fail(f"weights have shape {list(w_shape)}; a {rank}D transposed "
                        f"convolution needs rank {rank + 2}")
    kernel = list(w_shape[2:])
    strides = node.ints("strides", [1] * rank)
    dilations = node.ints("dilations", [1] * rank)
    output_padding = node.ints("output_padding", [0] * rank)
    for key, values in (("strides", strides), ("dilations", dilations),
                        ("output_padding", output_padding)):
        if len(values) != rank:
            raise node.fail(f"{key} {values} must have {rank} values")
    pads = _deconv_pads(node, list(node.shape(0)[2:]), kernel, strides, dilations,
                        output_padding)
    args = {"strides": strides, "dilations": dilations, "pads": pads}
    if any(output_padding):
        args["output_padding"] = output_padding
    group = int(node.attr("group", 1))
    if group != 1:
        args["group"] = group
    inputs = [node.tensor(0), node.tensor(1)]
    if _computed(node, 2) or node.optional_const(2, "bias") is not None:
        inputs.append(node.tensor(2))
    node.emit_out("Deconv2D" if rank == 2 else "Deconv3D", inputs, args)


def _deconv_pads(node: Node, size: list[int], kernel: list[int], strides: list[int],
                 dilations: list[int], output_padding: list[int]) -> list[int]:
    """ConvTranspose's crop of the full output, begins then ends, from pads,
    output_shape or auto_pad. An output_shape longer than the full output
    grows output_padding (in place)."""
    rank = len(size)
    auto_pad = node.attr("auto_pad", "NOTSET")
    out_shape = node.ints("output_shape")
    if out_shape:
        out_shape = out_shape[-rank:]
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out_shape = [n * s for n, s in zip(size, strides)]
    elif auto_pad not in ("NOTSET", "VALID"):
        raise node.fail(f"auto_pad '{auto_pad}' is not supported")
    if not out_shape:
        pads = node.ints("pads", [0] * (2 * rank))
        if len(pads) != 2 * rank:
            raise node.fail(f"pads {pads} must have {2 * rank} values")
        return pads
    pads = [0] * (2 * rank)
    for axis in range(rank):
        full = geometry.deconv_full(size[axis], kernel[axis], strides[axis],
                                    dilations[axis], output_padding[axis])
        total = full - out_shape[axis]
        if total < 0:
            output_padding[axis] -= total
            total = 0
        # As the ONNX spec says: SAME_UPPER crops the odd pixel at the end,
        # everything else at the start.
        head = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        pads[axis], pads[axis + rank] = head, total - head
    return pads


@converter("BatchNormalization")
def batch_norm(node: Node) -> None:
    if node.attr("training_mode", 0):
        _batch_norm_training(node)
        return
    if len([o for o in node.outputs if o]) > 1:
        raise node.fail("the running mean/variance outputs are not supported")
    if not all(node.known(i) for i in range(1, 5)):
        _batch_norm_computed(node)
        return
    gamma, beta = node.const(1, "scale"), node.const(2, "B")
    mean, var = node.const(3, "mean"), node.const(4, "var")
    epsilon = float(node.attr("epsilon", 1e-5))
    scale = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + epsilon)
    offset = beta.astype(np.float64) - mean.astype(np.float64) * scale
    node.emit_out("BatchNorm", [node.tensor(0),
                                node.weight(node.name + "/scale", scale.astype(np.float32)),
                                node.weight(node.name + "/offset", offset.astype(np.float32))])


def _batch_norm_training(node: Node) -> None:
    """training_mode 1: normalized with the batch's own mean and
    (population) variance per channel, Reduce MEAN over every axis but 1;
    the optional outputs are the running statistics
    input * momentum + batch * (1 - momentum)."""
    shape = list(node.shape(0))
    if len(shape) < 2:
        raise node.fail(f"the input has shape {shape}; it must be [N, C, ...]")
    channels = shape[1]
    axes = [0] + list(range(2, len(shape)))
    x = node.tensor(0)

    def mean(source: str) -> str:
        return node.emit("Reduce", [source], {"reduce_type": 0, "axis": axes,
                                              "keepdims": 1}).outputs[0]
    batch_mean = mean(x)
    centered = node.emit("Eltwise", [x, batch_mean], {"type": 1}).outputs[0]
    squares = node.emit("Eltwise", [centered, centered], {"type": 2}).outputs[0]
    batch_var = mean(squares)
    stats = [node.emit("Reshape", [t], {"shape": [channels]}).outputs[0]
             for t in (batch_mean, batch_var)]
    normalize = Node(node.graph, node.op_type, node.name, node.index,
                     [node.inputs[0], node.inputs[1], node.inputs[2]] + stats, node.outputs[:1],
                     node.attrs, node.values, node.ir_consts, node.opset, node.framework)
    _batch_norm_computed(normalize)
    momentum = float(node.attr("momentum", 0.9))
    for index, stat, output in ((3, stats[0], 1), (4, stats[1], 2)):
        if len(node.outputs) <= output or not node.outputs[output]:
            continue
        kept = node.emit("Eltwise", [node.tensor(index)], {
            "type": 2, "scalar_input": momentum, "scalar_input_index": 1}).outputs[0]
        new = node.emit("Eltwise", [stat], {"type": 2, "scalar_input": 1.0 - momentum,
                                            "scalar_input_index": 1}).outputs[0]
        node.emit("Eltwise", [kept, new], {"type": 0}, outputs=[node.outputs[output]])


def _batch_norm_computed(node: Node) -> None:
    """BatchNorm whose scale, B, mean or var are computed at run time: the
    per-channel scale gamma / sqrt(var + epsilon) and offset
    B - mean * scale are Eltwise ops on the [C] vectors, read by a
    BatchNorm op as tensors."""
    channels = node.shape(0)[1] if node.rank(0) >= 2 else None
    for index, what in ((1, "scale"), (2, "B"), (3, "mean"), (4, "var")):
        if not node.has_input(index):
            raise node.fail(f"input {index} ({what}) is missing")
        if list(node.shape(index)) != [channels]:
            raise node.fail(f"{what} has shape {list(node.shape(index))}; it must be "
                            f"[{channels}], one value per channel of the input "
                            f"{list(node.shape(0))}")
    epsilon = float(node.attr("epsilon", 1e-5))
    var = node.emit("Eltwise", [node.tensor(4)], {"type": 0, "scalar_input": epsilon})
    std = node.emit("Eltwise", var.outputs, {"type": 9, "scalar_input": 0.5})
    scale = node.emit("Eltwise", [node.tensor(1), std.outputs[0]], {"type": 3})
    shift = node.emit("Eltwise", [node.tensor(3), scale.outputs[0]], {"type": 2})
    offset = node.emit("Eltwise", [node.tensor(2), shift.outputs[0]], {"type": 1})
    node.emit_out("BatchNorm", [node.tensor(0), scale.outputs[0], offset.outputs[0]])


def _pool_3d(node: Node, pooling_type: int) -> None:
    """Pooling of [N, C, D, H, W] as two 2-D Poolings: over H and W with D
    folded into the channels, then over D with H x W flattened. Max and
    average are both separable over a box window: the taps inside the input
    (or inside the declared padding, with count_include_pad) are the product
    of each axis's, so averaging each axis over its own count gives the 3-D
    average, and ceil_mode trims each axis on its own."""
    n, c, d, h, w = node.shape(0)
    kernel = node.ints("kernel_shape")
    strides = node.ints("strides", [1, 1, 1])
    dilations = node.ints("dilations", [1, 1, 1])
    if len(kernel) != 3 or len(strides) != 3 or len(dilations) != 3:
        raise node.fail("a 3D window needs 3 kernel_shape, strides and dilations values")
    pads = _pads_3d(node, kernel, strides, dilations)
    common = {"pooling_type": pooling_type}
    if pooling_type == 3:
        # LP too: the H x W pooling gives each depth's sum^(1/p), which the
        # depth pooling raises to p again and sums.
        common["p"] = _lp_exponent(node)
    if node.attr("ceil_mode", 0):
        common["ceil_mode"] = 1
    if pooling_type == 1 and node.attr("count_include_pad", 0):
        common["count_include_pad"] = 1
        if node.attr("ceil_mode", 0):
            common["count_ceil_overhang"] = 1   # see _pool
    planes = node.emit("Reshape", [node.tensor(0)], {"shape": [n, c * d, h, w]}).outputs[0]
    spatial = node.emit("Pooling", [planes], dict(
        common, kernels=kernel[1:], strides=strides[1:], dilations=dilations[1:],
        pads=[pads[1], pads[2], pads[4], pads[5]])).outputs[0]
    _, _, h_out, w_out = node.graph.tensor(spatial).shape
    columns = node.emit("Reshape", [spatial], {"shape": [n, c, d, h_out * w_out]}).outputs[0]
    depth = node.emit("Pooling", [columns], dict(
        common, kernels=[kernel[0], 1], strides=[strides[0], 1], dilations=[dilations[0], 1],
        pads=[pads[0], 0, pads[3], 0])).outputs[0]
    d_out = node.graph.tensor(depth).shape[2]
    node.emit_out("Reshape", [depth], {"shape": [n, c, d_out, h_out, w_out]})


def _storage_order(node: Node) -> int:
    order = int(node.attr("storage_order", 0))
    if order not in (0, 1):
        raise node.fail(f"storage_order must be 0 or 1, got {order}")
    return order


def _max_pool_3d(node: Node) -> None:
    """MaxPool over [N, C, D, H, W] with its Indices output: one MaxPool3D
    (the two-Pooling split of _pool_3d loses where each maximum lies). Its
    int32 indices count row-major, or column-major over D, H and W."""
    kernel = node.ints("kernel_shape")
    strides = node.ints("strides", [1, 1, 1])
    dilations = node.ints("dilations", [1, 1, 1])
    if len(kernel) != 3 or len(strides) != 3 or len(dilations) != 3:
        raise node.fail("a 3D window needs 3 kernel_shape, strides and dilations values")
    args = {"kernels": kernel, "strides": strides, "dilations": dilations,
            "pads": _pads_3d(node, kernel, strides, dilations)}
    if node.attr("ceil_mode", 0):
        args["ceil_mode"] = 1
    if _storage_order(node):
        args["storage_order"] = 1
    node.emit("MaxPool3D", [node.tensor(0)], args, outputs=list(node.outputs[:2]))


def _pool(node: Node, pooling_type: int) -> None:
    with_indices = len(node.outputs) > 1 and bool(node.outputs[1])
    if node.rank(0) == 5:
        if with_indices:
            _max_pool_3d(node)
        else:
            _pool_3d(node, pooling_type)
        return
    spatial_2d(node)
    kernel = node.ints("kernel_shape")
    args = _window_attrs(node, kernel)
    args.update(pooling_type=pooling_type, kernels=kernel)
    if pooling_type == 3:
        args["p"] = _lp_exponent(node)
    if node.attr("ceil_mode", 0):
        args["ceil_mode"] = 1
    if pooling_type == 1 and node.attr("count_include_pad", 0):
        args["count_include_pad"] = 1
        if node.attr("ceil_mode", 0):
            # A last window reaching past the declared padding divides by all
            # its taps, as in ONNX's reference and ONNX Runtime. (Where it
            # reaches 2 or more past, the reference also moves every window
            # by half of that; ONNX Runtime and the engine keep them.)
            args["count_ceil_overhang"] = 1
    outputs = [node.outputs[0]]
    if with_indices:
        # The engine's indices are int32 (inputs are capped below 2^31
        # elements); the caller gets ONNX's int64 values.
        outputs.append(node.outputs[1])
        if _storage_order(node):
            args["storage_order"] = 1
    node.emit("Pooling", [node.tensor(0)], args, outputs=outputs)


@converter("MaxPool")
@_windowed
def max_pool(node: Node) -> None:
    _pool(node, 2)


@converter("AveragePool")
@_windowed
def average_pool(node: Node) -> None:
    _pool(node, 1)


@converter("LpPool")
@_windowed
def lp_pool(node: Node) -> None:
    _pool(node, 3)


def _lp_exponent(node: Node) -> int:
    """LpPool's p: an integer (opset 1 allowed a float; a whole one is
    taken), 1 or more."""
    p = node.attr("p", 2)
    if isinstance(p, float):
        if not p.is_integer():
            raise node.fail(f"p {p} must be a whole number")
        p = int(p)
    if p < 1:
        raise node.fail(f"p must be 1 or more, got {p}")
    return int(p)


@converter("GlobalAveragePool", "GlobalMaxPool")
def global_pool(node: Node) -> None:
    """A global Pooling of [N, C, H, W]; over any other number of spatial
    axes ([N, C, L] from tf2onnx's max over time, [N, C, D, H, W]) the mean
    or maximum over all of them, keeping them as ones."""
    average = node.op_type == "GlobalAveragePool"
    rank = node.rank(0)
    if rank == 4:
        node.emit_out("Pooling", [node.tensor(0)], {"pooling_type": 1 if average else 2,
                                                   "global": 1})
        return
    if rank < 3:
        raise node.fail(f"input has shape {list(node.shape(0))}; it needs a batch, a channel "
                        "and at least one spatial axis")
    node.emit_out("Reduce", [node.tensor(0)], {"reduce_type": 0 if average else 2,
                                               "axis": list(range(2, rank)), "keepdims": 1})


@converter("Gemm")
def gemm(node: Node) -> None:
    alpha, beta = float(node.attr("alpha", 1.0)), float(node.attr("beta", 1.0))
    trans_a, trans_b = int(node.attr("transA", 0)), int(node.attr("transB", 0))
    bias = node.optional_const(2) if node.is_const(2) else None
    out_features = node.shape(1)[0 if trans_b else 1]
    bias_is_vector = bias is not None and bias.size in (1, out_features) and \
        (bias.ndim < 2 or bias.shape[0] == 1)
    if node.is_const(1) and not trans_a and node.rank(0) == 2 and \
            (not node.has_input(2) or bias_is_vector):
        weights = node.const(1).astype(np.float64)
        weights = weights if trans_b else weights.T
        inputs = [node.tensor(0), node.weight(node.name + "/weights",
                                              (alpha * weights).astype(np.float32))]
        if bias is not None:
            vector = np.broadcast_to(bias.reshape(-1), (out_features,)) * beta
            inputs.append(node.weight(node.name + "/bias", vector.astype(np.float32)))
        node.emit_out("FullyConnected", inputs)
        return
    args = {"transpose_a": trans_a, "transpose_b": trans_b}
    product = node.emit("MatMul", [node.tensor(0), node.tensor(1)], args).outputs[0]
    if alpha != 1.0:
        product = node.emit("Eltwise", [product], {"type": 2, "scalar_input": alpha}).outputs[0]
    if not node.has_input(2):
        node.emit_out("Identity", [product])
        return
    c = node.tensor(2)
    if beta != 1.0:
        c = node.emit("Eltwise", [c], {"type": 2, "scalar_input": beta}).outputs[0]
    node.emit_out("Eltwise", [product, c], {"type": 0})


@converter("MatMul")
def matmul(node: Node) -> None:
    a_shape, b_shape = node.shape(0), node.shape(1)
    if len(a_shape) >= 2 and len(b_shape) == 2 and node.is_const(1) and not node.is_const(0):
        # A constant matrix: a FullyConnected, whose weight the uint8 pass
        # quantizes per output channel (a transformer's projections keep
        # their QDQ model's per-column scales). Leading axes of A are rows.
        weights = node.weight(node.name + "/weights", node.const(1).astype(np.float32).T)
        if len(a_shape) == 2:
            node.emit_out("FullyConnected", [node.tensor(0), weights])
            return
        rows = node.emit("Reshape", [node.tensor(0)],
                         {"shape": [int(np.prod(a_shape[:-1])), a_shape[-1]]}).outputs[0]
        product = node.emit("FullyConnected", [rows, weights]).outputs[0]
        node.emit_out("Reshape", [product], {"shape": list(a_shape[:-1]) + [b_shape[1]]})
        return
    a, b = node.tensor(0), node.tensor(1)
    out_shape = list(np.broadcast_shapes(a_shape[:-2] if len(a_shape) > 1 else (),
                                         b_shape[:-2] if len(b_shape) > 1 else ()))
    if len(a_shape) == 1:
        a = node.emit("Reshape", [a], {"shape": [1, a_shape[0]]}).outputs[0]
    else:
        out_shape.append(a_shape[-2])
    if len(b_shape) == 1:
        b = node.emit("Reshape", [b], {"shape": [b_shape[0], 1]}).outputs[0]
    else:
        out_shape.append(b_shape[-1])
    if len(a_shape) > 1 and len(b_shape) > 1:
        node.emit_out("MatMul", [a, b])
        return
    product = node.emit("MatMul", [a, b]).outputs[0]
    node.emit_out("Reshape", [product], {"shape": out_shape or [1]})


# ---- activations -------------------------------------------------------------
@converter("Relu")
def relu(node: Node) -> None:
    activation(node, "RELU")


@converter("Sigmoid")
def sigmoid(node: Node) -> None:
    activation(node, "SIGMOID")


@converter("Tanh")
def tanh(node: Node) -> None:
    activation(node, "TANH")


@converter("HardSwish")
def hard_swish(node: Node) -> None:
    activation(node, "HARDSWISH")


@converter("HardSigmoid")
def hard_sigmoid(node: Node) -> None:
    activation(node, "HARDSIGMOID", activation_coefficient=float(node.attr("alpha", 0.2)),
               activation_beta=float(node.attr("beta", 0.5)))


@converter("LeakyRelu")
def leaky_relu(node: Node) -> None:
    activation(node, "LEAKYRELU", activation_coefficient=float(node.attr("alpha", 0.01)))


@converter("PRelu")
def prelu(node: Node) -> None:
    if not node.known(1):
        _prelu_eltwise(node)
        return
    slope = node.const(1, "slope").astype(np.float32)
    if slope.size == 1:
        activation(node, "LEAKYRELU", activation_coefficient=float(slope.reshape(-1)[0]))
        return
    shape = node.shape(0)
    full = (1,) * (len(shape) - slope.ndim) + slope.shape
    if len(shape) < 2 or any(d != 1 for i, d in enumerate(full) if i != 1) \
            or full[1] != shape[1]:
        _prelu_eltwise(node)   # any other slope that broadcasts to the input
        return
    alpha = node.weight(node.inputs[1], slope.reshape(-1))
    node.emit_out("Activation", [node.tensor(0), alpha], {"activation": "PRELU"})


def _prelu_eltwise(node: Node) -> None:
    """PRelu with a slope computed at run time, or one that is not a scalar
    or per channel: max(x, 0) + slope * min(x, 0) in Eltwise ops, the slope
    broadcast to the input as ONNX allows."""
    x_shape, slope_shape = list(node.shape(0)), list(node.shape(1))
    if len(slope_shape) > len(x_shape) or any(
            s not in (1, x) for s, x in zip(reversed(slope_shape), reversed(x_shape))):
        raise node.fail(f"slope of shape {slope_shape} does not broadcast to the input "
                        f"{x_shape}")
    x = node.tensor(0)
    positive = node.emit("Eltwise", [x], {"type": MAX, "scalar_input": 0.0}).outputs[0]
    negative = node.emit("Eltwise", [x], {"type": MIN, "scalar_input": 0.0}).outputs[0]
    scaled = node.emit("Eltwise", [negative, node.tensor(1)], {"type": 2}).outputs[0]
    node.emit_out("Eltwise", [positive, scaled], {"type": 0})


@converter("Clip")
def clip(node: Node) -> None:
    if node.opset < 11:
        low, high = node.attr("min"), node.attr("max")
    elif _computed(node, 1) or _computed(node, 2):
        _clip_computed(node)
        return
    else:
        low = scalar_or_none(node.optional_const(1, "min"))
        high = scalar_or_none(node.optional_const(2, "max"))
    low = None if low is None or low <= -3.4e38 else float(low)
    high = None if high is None or high >= 3.4e38 or math.isinf(high) else float(high)
    if low == 0.0 and high is None:
        activation(node, "RELU")
    elif low == 0.0 and high == 6.0:
        activation(node, "RELU6")
    elif low == 0.0:
        activation(node, "RELUX", activation_max_limit=high)
    elif low is None and high is None:
        node.emit_out("Identity", [node.tensor(0)])
    else:
        source = node.tensor(0)
        if low is not None:
            outputs = node.outputs if high is None else None
            source = node.emit("Eltwise", [source], {"type": MAX, "scalar_input": low},
                               outputs=outputs).outputs[0]
        if high is not None:
            node.emit_out("Eltwise", [source], {"type": MIN, "scalar_input": high})


def _clip_computed(node: Node) -> None:
    """Clip with a bound computed at run time: Eltwise MAX with min, then
    MIN with max, each bound a one-element tensor."""
    source = node.tensor(0)
    present = [i for i in (1, 2) if node.has_input(i) and
               (_computed(node, i) or node.const(i).size)]
    for index in present:
        if int(np.prod(node.shape(index))) != 1:
            raise node.fail(f"input {index} has shape {list(node.shape(index))}; Clip's min "
                            "and max are scalars")
    for position, index in enumerate(present):
        outputs = node.outputs if position == len(present) - 1 else None
        kind = MAX if index == 1 else MIN
        source = node.emit("Eltwise", [source, node.tensor(index)], {"type": kind},
                           outputs=outputs).outputs[0]
    if not present:
        node.emit_out("Identity", [source])


@converter("LRN")
def lrn(node: Node) -> None:
    spatial_2d(node)
    size = int(node.attr("size"))
    if size % 2 == 0:
        raise node.fail(f"an even LRN size ({size}) has an asymmetric window, which is not "
                        "supported")
    node.emit_out("LocalResponseNorm", [node.tensor(0)], {
        "depth_radius": (size - 1) // 2, "bias": float(node.attr("bias", 1.0)),
        "alpha": float(node.attr("alpha", 1e-4)) / size,
        "beta": float(node.attr("beta", 0.75))})


@converter("Add", "Sub", "Mul", "Div", "Pow")
def binary(node: Node) -> None:
    kind = {"Add": 0, "Sub": 1, "Mul": 2, "Div": 3, "Pow": 9}[node.op_type]
    eltwise(node, kind, 0, 1, outputs=node.outputs)


@converter("Min", "Max", "Sum")
def variadic(node: Node) -> None:
    kind = {"Sum": 0, "Min": MIN, "Max": MAX}[node.op_type]
    present = [i for i in range(len(node.inputs)) if node.has_input(i)]
    if len(present) == 1:
        node.emit_out("Identity", [node.tensor(present[0])])
        return
    source = float_input(node, present[0])
    for position, index in enumerate(present[1:], start=2):
        last = position == len(present)
        operand = float_input(node, index)
        source = node.emit("Eltwise", [source, operand], {"type": kind},
                           outputs=node.outputs if last else None).outputs[0]


@converter("Neg", "Abs")
def unary(node: Node) -> None:
    eltwise(node, 6 if node.op_type == "Neg" else 7, 0, None, outputs=node.outputs)


# ONNX ops that map to one Unary type each.
UNARY_TYPES = {
    "Exp": "EXP", "Log": "LOG", "Floor": "FLOOR", "Ceil": "CEIL", "Round": "ROUND",
    "Sign": "SIGN", "Erf": "ERF", "Softplus": "SOFTPLUS", "Softsign": "SOFTSIGN",
    "Mish": "MISH", "Sin": "SIN", "Cos": "COS", "Tan": "TAN", "Asin": "ASIN", "Acos": "ACOS",
    "Atan": "ATAN", "Sinh": "SINH", "Cosh": "COSH", "Asinh": "ASINH", "Acosh": "ACOSH",
    "Atanh": "ATANH", "Elu": "ELU", "Selu": "SELU", "Celu": "CELU",
    "ThresholdedRelu": "THRESHOLDED_RELU", "Gelu": "GELU",
}


@converter(*UNARY_TYPES)
def unary_math(node: Node) -> None:
    kind = UNARY_TYPES[node.op_type]
    args: dict = {"type": kind}
    if node.op_type == "Gelu":
        approximate = node.attr("approximate", "none")
        approximate = approximate.decode() if isinstance(approximate, bytes) else approximate
        if approximate not in ("none", "tanh"):
            raise node.fail(f"approximate='{approximate}' is not 'none' or 'tanh'")
        args["type"] = "GELU_TANH" if approximate == "tanh" else "GELU"
    elif node.op_type in ("Elu", "Celu"):
        args["alpha"] = float(node.attr("alpha", 1.0))
        if node.op_type == "Celu" and args["alpha"] == 0.0:
            raise node.fail("Celu's alpha must not be 0")
    elif node.op_type == "ThresholdedRelu":
        args["alpha"] = float(node.attr("alpha", 1.0))
    elif node.op_type == "Selu":
        args["alpha"] = float(node.attr("alpha", 1.67326319217681884765625))
        args["gamma"] = float(node.attr("gamma", 1.05070102214813232421875))
    node.emit_out("Unary", [node.tensor(0)], args)


@converter("Sqrt")
def sqrt(node: Node) -> None:
    node.emit_out("Eltwise", [node.tensor(0)], {"type": 9, "scalar_input": 0.5})


@converter("Reciprocal")
def reciprocal(node: Node) -> None:
    node.emit_out("Eltwise", [node.tensor(0)], {"type": 3, "scalar_input": 1.0,
                                                "scalar_input_index": 0})


def integer_division(node: Node, elem: Optional[int]) -> None:
    """Div of integer tensors (ONNX element type `elem`): the float
    quotient, then a Cast to that type, which truncates toward zero. For
    |a| < 2^24 the correctly rounded float quotient of two integers never
    crosses an integer, so the result is exact; a division by zero gives
    what the Cast makes of an infinity."""
    from mace_converter.frontends.onnx_tensor import CAST_TYPES, emit_cast
    if elem not in CAST_TYPES or elem in (1, 9, 10, 11, 16, 17, 18, 19, 20):
        raise node.fail(f"Div of ONNX element type {elem} is not an integer division the "
                        "engine can run")
    quotient = node.graph.unique_name(f"{node.outputs[0]}_quotient")
    float_div = Node(node.graph, node.op_type, node.name, node.index, node.inputs, [quotient],
                     node.attrs, node.values, node.ir_consts, node.opset, node.framework)
    CONVERTERS[node.op_type](float_div)
    emit_cast(node, quotient, int(elem))
