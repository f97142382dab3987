"""Folds per-channel affine ops into the weights and bias of the
convolution or fully connected op before them:

- BatchNorm (the frontends give it as scale and offset; Caffe's BatchNorm
  and Scale layers both become BatchNorm),
- BiasAdd,
- Eltwise SUM, SUB, PROD or DIV with a constant that is per-channel or
  scalar (what graphs without a BatchNorm op use instead).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter.ir import Graph, Op
from mace_converter.numpy_ops.tensor import DIV, PROD, SUB, SUM

WEIGHTED = ("Conv2D", "DepthwiseConv2d", "Deconv2D", "FullyConnected")


def sole_consumer(graph: Graph, name: str,
                  consumers: Optional[dict[str, list[Op]]] = None) -> Optional[Op]:
    """The one op reading `name`, if exactly one does and it is not a graph
    output (folding into its producer would change that output)."""
    if name in graph.outputs:
        return None
    users = (consumers if consumers is not None else graph.consumers()).get(name, [])
    if len(users) != 1 or users[0].inputs.count(name) != 1:
        return None
    return users[0]


def per_channel(value: np.ndarray, out_shape: tuple[int, ...]) -> Optional[np.ndarray]:
    """The [C] vector a constant operand applies along axis 1 of an output of
    `out_shape`, or None if it varies along any other axis."""
    channels = out_shape[1]
    value = np.asarray(value, dtype=np.float64)
    if value.ndim > len(out_shape):
        return None
    full = (1,) * (len(out_shape) - value.ndim) + value.shape
    if any(d != 1 for i, d in enumerate(full) if i != 1) or full[1] not in (1, channels):
        return None
    return np.broadcast_to(value.reshape(-1), (channels,)).copy()


def _scale_weights(graph: Graph, op: Op, scale: np.ndarray) -> None:
    weights = graph.const(op.inputs[1]).astype(np.float64)
    if op.type in ("Conv2D", "FullyConnected"):
        weights = weights * scale.reshape((-1,) + (1,) * (weights.ndim - 1))
    elif op.type == "DepthwiseConv2d":
        multiplier, channels = weights.shape[:2]
        weights = weights * scale.reshape(channels, multiplier).T[:, :, None, None]
    else:  # Deconv2D: filter [C_in, C_out / group, kh, kw]
        group = int(op.args.get("group", 1))
        in_channels, per_group = weights.shape[:2]
        groups = np.arange(in_channels) // (in_channels // group)
        columns = groups[:, None] * per_group + np.arange(per_group)[None, :]
        weights = weights * scale[columns][:, :, None, None]
    op.inputs[1] = graph.add_const(op.inputs[1], weights.astype(np.float32))


def _bias(graph: Graph, op: Op) -> np.ndarray:
    channels = graph.shape(op.outputs[0])[1]
    if len(op.inputs) > 2 and op.inputs[2]:
        return graph.const(op.inputs[2]).astype(np.float64)
    return np.zeros(channels)


def _set_bias(graph: Graph, op: Op, bias: np.ndarray) -> None:
    name = graph.add_const(op.name + "/bias", bias.astype(np.float32))
    if len(op.inputs) > 2:
        op.inputs[2] = name
    else:
        op.inputs.append(name)


def _affine_of(graph: Graph, follower: Op, source: str
               ) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """(scale, offset) per channel if `follower` is an affine op on `source`
    with constant parameters and no activation."""
    if follower.args.get("activation", "NOOP") != "NOOP":
        return None
    out_shape = graph.shape(source)
    channels = out_shape[1]
    if follower.type == "BatchNorm":
        if len(follower.inputs) != 3 or not all(graph.is_const(n) for n in follower.inputs[1:]):
            return None
        return (graph.const(follower.inputs[1]).astype(np.float64),
                graph.const(follower.inputs[2]).astype(np.float64))
    if follower.type == "BiasAdd":
        if not graph.is_const(follower.inputs[1]):
            return None
        return np.ones(channels), graph.const(follower.inputs[1]).astype(np.float64)
    if follower.type != "Eltwise" or "coeff" in follower.args:
        return None
    kind = int(follower.args["type"])
    if len(follower.inputs) == 1:
        if "scalar_input" not in follower.args:
            return None
        constant = np.float64(np.float32(follower.args["scalar_input"]))
        first = int(follower.args.get("scalar_input_index", 1)) == 0
        vector = np.full(channels, constant)
    else:
        other = follower.inputs[1] if follower.inputs[0] == source else follower.inputs[0]
        first = follower.inputs[1] == source
        if not graph.is_const(other) or graph.shape(follower.outputs[0]) != out_shape:
            return None
        vector = per_channel(graph.const(other), out_shape)
        if vector is None:
            return None
    if kind == SUM:
        return np.ones(channels), vector
    if kind == PROD:
        return vector, np.zeros(channels)
    if kind == SUB and not first:
        return np.ones(channels), -vector
    if kind == DIV and not first and np.all(vector != 0):
        return 1.0 / vector, np.zeros(channels)
    return None


def fold_affine(graph: Graph) -> int:
    folded = 0
    counts: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        consumers = graph.consumers()
        removed: set[int] = set()
        for op in list(graph.ops):
            if id(op) in removed or op.type not in WEIGHTED \
                    or op.args.get("activation", "NOOP") != "NOOP" \
                    or not graph.is_const(op.inputs[1]) \
                    or (len(op.inputs) > 2 and op.inputs[2] and not graph.is_const(op.inputs[2])):
                continue
            follower = sole_consumer(graph, op.outputs[0], consumers)
            if follower is None or id(follower) in removed:
                continue
            affine = _affine_of(graph, follower, op.outputs[0])
            if affine is None:
                continue
            scale, offset = affine
            _scale_weights(graph, op, scale)
            _set_bias(graph, op, _bias(graph, op) * scale + offset)
            graph.remove_op(follower)
            removed.add(id(follower))
            graph.rename_tensor(op.outputs[0], follower.outputs[0])
            counts[follower.type] = counts.get(follower.type, 0) + 1
            folded += 1
            changed = True
    for kind, count in sorted(counts.items()):
        graph.log.append(f"folded {count} {kind} op(s) into the preceding "
                         "convolution or fully connected op")
    return folded
