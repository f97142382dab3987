"""Fuses a standalone Activation into the op before it, for the ops whose
kernels apply an activation to their output (docs/reference/ops.md)."""
from __future__ import annotations

from mace_converter.ir import Graph
from mace_converter.transforms.fold_affine import sole_consumer

FUSABLE = ("Conv2D", "Conv3D", "DepthwiseConv2d", "Deconv2D", "FullyConnected", "Eltwise",
           "BatchNorm", "BiasAdd")
ACTIVATION_ARGS = ("activation", "activation_max_limit", "activation_coefficient",
                   "activation_beta")


# Activations the CPU kernels cannot apply in registers: fused, they would
# take a separate scalar pass over the op's output, where a standalone
# Activation op runs the vector kernels (mace/ops/cpu/activation_cpu.cc).
CPU_SEPARATE = ("SIGMOID", "TANH")


def fuse_activation(graph: Graph, keep_separate: tuple[str, ...] = ()) -> int:
    """Fuses every Activation it can, except those in `keep_separate`."""
    counts: dict[str, int] = {}
    consumers = graph.consumers()
    removed: set[int] = set()
    for op in list(graph.ops):
        if id(op) in removed or op.type not in FUSABLE \
                or op.args.get("activation", "NOOP") != "NOOP":
            continue
        follower = sole_consumer(graph, op.outputs[0], consumers)
        if follower is None or follower.type != "Activation" \
                or follower.args.get("activation") in (None, "PRELU", "NOOP") \
                or follower.args.get("activation") in keep_separate:
            continue
        for key in ACTIVATION_ARGS:
            if key in follower.args:
                op.args[key] = follower.args[key]
        graph.remove_op(follower)
        removed.add(id(follower))
        graph.rename_tensor(op.outputs[0], follower.outputs[0])
        kind = f"{follower.args['activation']} into {op.type}"
        counts[kind] = counts.get(kind, 0) + 1
    for kind, count in sorted(counts.items()):
        graph.log.append(f"fused {count} activation(s): {kind}")
    return sum(counts.values())
