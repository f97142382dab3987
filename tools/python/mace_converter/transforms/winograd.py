"""Marks the convolutions a Winograd kernel can run: 3x3, stride 1,
dilation 1, no groups. The engine reads the tile size from the `winograd`
argument and falls back to direct convolution where it has no such kernel."""
from __future__ import annotations

from mace_converter.api import ConversionError
from mace_converter.ir import Graph

TILE_SIZES = (2, 4, 6)


def mark_winograd(graph: Graph, tile: int) -> int:
    if tile == 0:
        return 0
    if tile not in TILE_SIZES:
        raise ConversionError(f"winograd tile size must be 0 (off) or one of "
                              f"{', '.join(map(str, TILE_SIZES))}, got {tile}")
    marked = 0
    for op in graph.ops:
        if op.type != "Conv2D" or int(op.args.get("group", 1)) != 1:
            continue
        if tuple(graph.shape(op.inputs[1])[2:]) != (3, 3):
            continue
        if list(op.args.get("strides", [1, 1])) != [1, 1] \
                or list(op.args.get("dilations", [1, 1])) != [1, 1]:
            continue
        op.args["winograd"] = tile
        marked += 1
    graph.log.append(f"winograd: marked {marked} 3x3 stride-1 convolution(s) with tile {tile}")
    return marked
