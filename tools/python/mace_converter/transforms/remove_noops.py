"""Removes ops that do not change their data: Identity (Dropout becomes
Identity in the frontends), Reshapes to the same shape, identity Transposes;
merges Reshape chains and Transpose chains."""
from __future__ import annotations

from mace_converter.ir import Graph, Op
from mace_converter.shape_rules import TRANSPOSE_PERM


def _is_noop(graph: Graph, op: Op) -> bool:
    if op.type == "Identity":
        return True
    if op.type in ("Reshape", "Squeeze"):
        # A Reshape with a computed shape input checks it at run time.
        return len(op.inputs) == 1 and graph.shape(op.inputs[0]) == graph.shape(op.outputs[0])
    if op.type == "Transpose":
        perm = list(op.args[TRANSPOSE_PERM])
        return perm == sorted(perm)
    return False


def _merge_chain(graph: Graph, op: Op, producers: dict[str, Op],
                 use_counts: dict[str, int]) -> bool:
    """Reshape(Reshape(x)) -> Reshape(x); Transpose(Transpose(x)) -> one."""
    source = producers.get(op.inputs[0])
    if source is None or use_counts.get(op.inputs[0], 0) != 1 \
            or op.inputs[0] in graph.outputs:
        return False
    if op.type == "Reshape" and source.type in ("Reshape", "Squeeze") \
            and len(source.inputs) == 1:
        op.inputs[0] = source.inputs[0]
        graph.remove_op(source)
        return True
    if op.type == "Transpose" and source.type == "Transpose":
        first, second = source.args[TRANSPOSE_PERM], op.args[TRANSPOSE_PERM]
        op.args[TRANSPOSE_PERM] = [int(first[p]) for p in second]
        op.inputs[0] = source.inputs[0]
        graph.remove_op(source)
        return True
    return False


def remove_noops(graph: Graph) -> int:
    removed = 0
    changed = True
    while changed:
        changed = False
        producers = graph.producers()
        use_counts: dict[str, int] = {}
        for op in graph.ops:
            for name in op.inputs:
                use_counts[name] = use_counts.get(name, 0) + 1
        for op in list(graph.ops):
            if op.type in ("Reshape", "Transpose") and _merge_chain(graph, op, producers,
                                                                    use_counts):
                removed += 1
                changed = True
                break
            if _is_noop(graph, op) and graph.can_bypass(op):
                graph.bypass(op)
                removed += 1
                changed = True
                break
    if removed:
        graph.log.append(f"removed {removed} no-op op(s) (Identity, Dropout, no-op Reshape "
                         "or Transpose, merged chains)")
    return removed
