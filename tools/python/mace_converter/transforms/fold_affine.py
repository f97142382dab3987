"""Folds per-channel affine ops into the weights and bias of the
convolution or fully connected op before them:

- BatchNorm (the frontends give it as scale and offset; Caffe's BatchNorm
  and Scale layers both become BatchNorm),
- BiasAdd,
- Eltwise SUM, SUB, PROD or DIV with a constant that is per-channel or
  scalar (what graphs without a BatchNorm op use instead).

`fold_bias_through_reshape` also folds a bias added after a Reshape of a
FullyConnected's [M, N] output, as a MatMul on a rank-3 input becomes
(Reshape, FullyConnected, Reshape) with the exporter's Add of the bias
after it.
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


def along_last(value: np.ndarray, out_shape: tuple[int, ...]) -> Optional[np.ndarray]:
    """The [N] vector a constant operand applies along the last axis of an
    output of `out_shape`, or None if it varies along any other axis."""
    last = out_shape[-1]
    value = np.asarray(value, dtype=np.float64)
    if value.ndim > len(out_shape):
        return None
    full = (1,) * (len(out_shape) - value.ndim) + value.shape
    if any(d != 1 for d in full[:-1]) or full[-1] not in (1, last):
        return None
    return np.broadcast_to(value.reshape(-1), (last,)).copy()


def fold_bias_through_reshape(graph: Graph) -> int:
    """FullyConnected [M, N] -> Reshape keeping N last -> Eltwise SUM (or
    SUB of the constant) with a constant along the last axis: the constant
    goes into the FullyConnected's bias and the Eltwise is removed, the
    Reshape then writing its output."""
    # One pass: a fold touches only its own FullyConnected, Reshape and
    # Eltwise, none of which another match reads.
    folded = 0
    consumers = graph.consumers()
    for op in list(graph.ops):
        if op.type != "FullyConnected" or op.args.get("activation", "NOOP") != "NOOP" \
                or not graph.is_const(op.inputs[1]) \
                or (len(op.inputs) > 2 and op.inputs[2] and not graph.is_const(op.inputs[2])):
            continue
        fc_shape = graph.tensor(op.outputs[0]).shape
        if fc_shape is None or len(fc_shape) != 2:
            continue
        reshape = sole_consumer(graph, op.outputs[0], consumers)
        if reshape is None or reshape.type != "Reshape" \
                or reshape.inputs[0] != op.outputs[0]:
            continue
        shaped = graph.tensor(reshape.outputs[0]).shape
        if not shaped or shaped[-1] != fc_shape[1]:
            continue
        add = sole_consumer(graph, reshape.outputs[0], consumers)
        if add is None or add.type != "Eltwise" or "coeff" in add.args \
                or add.args.get("activation", "NOOP") != "NOOP" \
                or graph.tensor(add.outputs[0]).shape != shaped:
            continue
        if len(add.inputs) == 1 and "scalar_input" in add.args:
            # A scalar operand held as an argument.
            reshaped_first = int(add.args.get("scalar_input_index", 1)) == 1
            vector = np.full(shaped[-1], np.float64(np.float32(add.args["scalar_input"])))
        elif len(add.inputs) == 2:
            reshaped_first = add.inputs[0] == reshape.outputs[0]
            other = add.inputs[1] if reshaped_first else add.inputs[0]
            if not graph.is_const(other):
                continue
            vector = along_last(graph.const(other), shaped)
        else:
            continue
        kind = int(add.args["type"])
        if vector is None or not (kind == SUM or (kind == SUB and reshaped_first)):
            continue
        _set_bias(graph, op, _bias(graph, op) + (vector if kind == SUM else -vector))
        graph.remove_op(add)
        graph.rename_tensor(reshape.outputs[0], add.outputs[0])
        folded += 1
    if folded:
        graph.log.append(f"folded {folded} bias Eltwise op(s) after a Reshape into the "
                         "FullyConnected before it")
    return folded
