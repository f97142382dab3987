"""Replaces the Reshape -> Transpose -> Reshape pattern that exporters write
for ShuffleNet's channel shuffle by one ChannelShuffle op (NCHW), and on the
CPU lets that op also do the Split on channels that follows it."""
from __future__ import annotations

from mace_converter.ir import Graph
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
