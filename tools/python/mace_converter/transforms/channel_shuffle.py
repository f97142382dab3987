"""Replaces the Reshape -> Transpose -> Reshape pattern that exporters write
for ShuffleNet's channel shuffle by one ChannelShuffle op (NCHW), and on the
CPU lets that op also do the Split on channels that follows it, or folds it
into the weights of the convolutions that read it."""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter.ir import Graph, Op
from mace_converter.shape_rules import TRANSPOSE_PERM
from mace_converter.transforms.fold_affine import sole_consumer


def fuse_channel_shuffle(graph: Graph) -> int:
    fused = 0
    consumers = graph.consumers()
    for first in list(graph.ops):
        if first.type != "Reshape" or first not in graph.ops or len(first.inputs) != 1:
            continue
        source = graph.shape(first.inputs[0])
        grouped = graph.shape(first.outputs[0])
        if len(source) != 4 or len(grouped) != 5:
            continue
        n, c, h, w = source
        g = grouped[1]
        if grouped != (n, g, c // g, h, w) or g * (c // g) != c:
            continue
        middle = sole_consumer(graph, first.outputs[0], consumers)
        if middle is None or middle.type != "Transpose" \
                or list(middle.args[TRANSPOSE_PERM]) != [0, 2, 1, 3, 4]:
            continue
        last = sole_consumer(graph, middle.outputs[0], consumers)
        if last is None or last.type != "Reshape" or len(last.inputs) != 1 \
                or graph.shape(last.outputs[0]) != source:
            continue
        first.type = "ChannelShuffle"
        first.args = {"group": g}
        graph.remove_op(middle)
        graph.remove_op(last)
        graph.rename_tensor(first.outputs[0], last.outputs[0])
        graph.tensor(last.outputs[0]).shape = source
        fused += 1
    if fused:
        graph.log.append(f"replaced {fused} Reshape-Transpose-Reshape pattern(s) by "
                         "ChannelShuffle")
    return fused


def fuse_shuffle_split(graph: Graph) -> int:
    """ChannelShuffle whose only reader is a Split of its channels into equal
    pieces (ShuffleNet v2's units) becomes one ChannelShuffle with the
    Split's outputs: each plane is copied once, not twice, and the shuffled
    tensor needs no memory. Only the CPU kernel writes several outputs, so
    the caller runs this for CPU graphs alone."""
    fused = 0
    consumers = graph.consumers()
    for shuffle in list(graph.ops):
        if shuffle.type != "ChannelShuffle" or len(shuffle.outputs) != 1:
            continue
        split = sole_consumer(graph, shuffle.outputs[0], consumers)
        # A sizes input is checked at run time by Split alone.
        if split is None or split.type != "Split" or len(split.inputs) != 1 \
                or len(split.outputs) < 2:
            continue
        shape = graph.shape(shuffle.outputs[0])
        if len(shape) != 4 or int(split.args.get("axis", 1)) % 4 != 1:
            continue
        count = len(split.outputs)
        sizes = [int(size) for size in split.args.get("split") or []]
        if shape[1] % count or any(size != shape[1] // count for size in sizes):
            continue
        graph.ops = [op for op in graph.ops if op is not split]
        graph.tensors.pop(shuffle.outputs[0], None)
        shuffle.outputs = list(split.outputs)
        fused += 1
    if fused:
        graph.log.append(f"fused {fused} ChannelShuffle-Split pair(s) into ChannelShuffle")
    return fused


def _shuffle_sources(channels: int, group: int) -> np.ndarray:
    """sources[c] is the input channel that channel c of a ChannelShuffle in
    `group` groups copies."""
    c = np.arange(channels)
    return (c % group) * (channels // group) + c // group


def _reads_channels_once(graph: Graph, op: Op, name: str) -> bool:
    """`op` is a plain 2-D convolution (one group, constant weights and
    bias) that reads `name` as its input and nowhere else."""
    return (op.type == "Conv2D" and int(op.args.get("group", 1)) == 1
            and len(op.inputs) in (2, 3) and op.inputs[0] == name
            and op.inputs.count(name) == 1 and graph.is_const(op.inputs[1])
            and graph.const(op.inputs[1]).ndim == 4)


def _channelwise(graph: Graph, op: Op, name: str) -> bool:
    """`op` is a depthwise convolution with one filter per channel (constant
    filter and bias, no per-channel activation parameters) reading `name`."""
    if op.type != "DepthwiseConv2d" or len(op.inputs) not in (2, 3) \
            or op.inputs[0] != name or op.inputs.count(name) != 1 \
            or op.args.get("activation", "NOOP") == "PRELU":
        return False
    if not all(graph.is_const(n) for n in op.inputs[1:]):
        return False
    filt = graph.const(op.inputs[1])
    return filt.ndim == 4 and filt.shape[0] == 1


def _foldable_readers(graph: Graph, name: str,
                      consumers: dict[str, list[Op]]) -> Optional[list[Op]]:
    """The ops that read `name` and, through depthwise convolutions, its
    channels in that order, if each is a plain convolution or such a
    depthwise one whose readers all are plain convolutions."""
    if name in graph.outputs or not consumers.get(name):
        return None
    readers = []
    for op in consumers[name]:
        if _reads_channels_once(graph, op, name):
            readers.append(op)
            continue
        if not _channelwise(graph, op, name):
            return None
        out = op.outputs[0]
        if out in graph.outputs or not consumers.get(out) or not all(
                _reads_channels_once(graph, reader, out) for reader in consumers[out]):
            return None
        readers.append(op)
        readers.extend(consumers[out])
    return readers


def fold_shuffle_into_readers(graph: Graph) -> int:
    """A ChannelShuffle whose readers are convolutions (ShuffleNet v2's last
    unit of a stage, read whole by the next stage's first unit and by the
    last 1x1 convolution) goes away: each convolution's weights take their
    input channels in the unshuffled order, and a depthwise convolution in
    between (which keeps channels apart) computes its channels in that
    order too. The CPU graph then copies no planes for it."""
    folded = 0
    consumers = graph.consumers()
    for shuffle in list(graph.ops):
        if shuffle.type != "ChannelShuffle" or len(shuffle.outputs) != 1 \
                or len(shuffle.inputs) != 1:
            continue
        shape = graph.shape(shuffle.outputs[0])
        group = int(shuffle.args.get("group", 1))
        if len(shape) != 4 or group < 1 or shape[1] % group:
            continue
        readers = _foldable_readers(graph, shuffle.outputs[0], consumers)
        if readers is None:
            continue
        sources = _shuffle_sources(shape[1], group)
        for op in readers:
            # Axis 1 is a convolution's input channel and a depthwise
            # filter's channel ([1, C, kh, kw]): entry sources[c] takes c's.
            weights = graph.const(op.inputs[1])
            moved = np.empty_like(weights)
            moved[:, sources] = weights
            op.inputs[1] = graph.add_const(op.inputs[1], moved)
            if op.type == "DepthwiseConv2d" and len(op.inputs) > 2:
                bias = graph.const(op.inputs[2])
                reordered = np.empty_like(bias)
                reordered[sources] = bias
                op.inputs[2] = graph.add_const(op.inputs[2], reordered)
        for op in consumers[shuffle.outputs[0]]:
            op.inputs[0] = shuffle.inputs[0]
        graph.remove_op(shuffle)
        consumers = graph.consumers()
        folded += 1
    if folded:
        graph.log.append(f"folded {folded} ChannelShuffle(s) into the weights of their readers")
    return folded
