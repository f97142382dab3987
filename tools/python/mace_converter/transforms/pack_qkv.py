"""One projection for Q, K and V: an Attention op whose q, k and v each come
from a FullyConnected of the same input (directly, or through Reshapes
that only add the batch axis) gets one FullyConnected with the three weights and biases
concatenated, and reads its [S, 3*H*D] output three times in the packed
layout (numpy_ops/attention.py PACKED). The input is then packed once for
the three products instead of three times, and one wider product runs
instead of three narrow ones."""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter.ir import FLOAT32, Graph, Op
from mace_converter.numpy_ops.attention import MERGED, PACKED, layouts_of
from mace_converter.transforms.fold_affine import sole_consumer


def _projection(graph: Graph, name: str, attention: Op, producers: dict[str, Op],
                consumers: dict[str, list[Op]]) -> Optional[tuple[Op, Optional[Op]]]:
    """(FullyConnected, the Reshape after it or None) behind the Attention
    input `name`: a FullyConnected [S, N] with constant float weights, no
    activation and one reader, directly or through a Reshape to [1, S, N]
    that only the Attention op reads."""
    if [id(op) for op in consumers.get(name, [])] != [id(attention)] or name in graph.outputs:
        return None
    reshape = producers.get(name)
    if reshape is not None and reshape.type == "Reshape":
        fc = producers.get(reshape.inputs[0])
        if fc is None or sole_consumer(graph, fc.outputs[0], consumers) is not reshape:
            return None
    else:
        fc, reshape = reshape, None
    if fc is None or fc.type != "FullyConnected" \
            or fc.args.get("activation", "NOOP") != "NOOP":
        return None
    out, shaped = graph.tensor(fc.outputs[0]).shape, graph.tensor(name).shape
    if not out or len(out) != 2 or min(out) <= 0 or tuple(shaped or ()) not in ((1, *out), out):
        return None
    weight = graph.tensor(fc.inputs[1])
    if not weight.is_const or weight.dtype != FLOAT32 or weight.quant is not None \
            or weight.value.ndim != 2 or weight.value.shape[0] != out[1]:
        return None
    if len(fc.inputs) > 2 and fc.inputs[2]:
        bias = graph.tensor(fc.inputs[2])
        if not bias.is_const or bias.dtype != FLOAT32 or bias.value.size != out[1]:
            return None
    return fc, reshape


def _source(fc: Op, producers: dict[str, Op]) -> tuple:
    """What a FullyConnected reads, with Reshapes of one tensor to one shape
    counted as the same input."""
    op = producers.get(fc.inputs[0])
    if op is not None and op.type == "Reshape":
        return ("reshape", tuple(op.inputs), tuple(op.args.get("shape", ())))
    return ("tensor", fc.inputs[0])


def _bias(graph: Graph, fc: Op) -> np.ndarray:
    if len(fc.inputs) > 2 and fc.inputs[2]:
        return graph.const(fc.inputs[2]).astype(np.float32).reshape(-1)
    return np.zeros(graph.const(fc.inputs[1]).shape[0], np.float32)


def pack_qkv(graph: Graph) -> int:
    """Rewrites each matching Attention op as above; returns how many."""
    packed = 0
    producers = graph.producers()
    consumers = graph.consumers()
    for attention in list(graph.ops):
        if attention.type != "Attention" or len(attention.inputs) < 3:
            continue
        layouts = layouts_of(attention.args)
        heads = int(attention.args.get("heads", 0))
        if layouts[:3] != [MERGED] * 3 or heads <= 0 or len(set(attention.inputs[:3])) != 3:
            continue
        found = [_projection(graph, name, attention, producers, consumers)
                 for name in attention.inputs[:3]]
        if any(f is None for f in found):
            continue
        fcs = [f[0] for f in found]
        shapes = [graph.tensor(fc.outputs[0]).shape for fc in fcs]
        weights = [graph.const(fc.inputs[1]) for fc in fcs]
        if len({_source(fc, producers) for fc in fcs}) != 1 or len(set(shapes)) != 1 \
                or len({w.shape for w in weights}) != 1 or shapes[0][1] % heads != 0 \
                or any(fc.args != fcs[0].args for fc in fcs):
            continue
        query = fcs[0]
        weight = np.concatenate([w.astype(np.float32) for w in weights], axis=0)
        bias = np.concatenate([_bias(graph, fc) for fc in fcs])
        query.inputs = [query.inputs[0], graph.add_const(query.name + "/qkv_weights", weight),
                        graph.add_const(query.name + "/qkv_bias", bias)]
        rows, width = shapes[0]
        graph.tensor(query.outputs[0]).shape = (rows, 3 * width)
        for fc, reshape in found:
            if reshape is not None:
                graph.remove_op(reshape)
            if fc is not query:
                graph.remove_op(fc)
        attention.inputs[:3] = [query.outputs[0]] * 3
        attention.args["layouts"] = [PACKED] * 3 + layouts[3:]
        packed += 1
        producers = graph.producers()
        consumers = graph.consumers()
    if packed:
        graph.log.append(f"packed the Q, K and V projections of {packed} Attention op(s) "
                         "into one FullyConnected each")
    return packed
