"""Replaces op and tensor names by meaningless ones, except the graph inputs
and outputs the application addresses by name."""
from __future__ import annotations

from mace_converter.ir import Graph


def obfuscate(graph: Graph) -> None:
    keep = set(graph.inputs) | set(graph.outputs)
    mapping: dict[str, str] = {}
    constants = 0
    activations = 0
    for op in graph.ops:
        for name in op.inputs:
            if name and name not in keep and name not in mapping and graph.is_const(name):
                mapping[name] = f"w{constants}"
                constants += 1
        for name in op.outputs:
            if name not in keep and name not in mapping:
                mapping[name] = f"t{activations}"
                activations += 1
    taken = set(mapping.values())
    clash = keep & taken
    if clash:   # an input or output already named like "t3": pick another prefix
        mapping = {old: "_" + new for old, new in mapping.items()}
    for index, op in enumerate(graph.ops):
        op.name = f"op{index}"
        op.origin = ""
        op.inputs = [mapping.get(name, name) for name in op.inputs]
        op.outputs = [mapping.get(name, name) for name in op.outputs]
    graph.tensors = {mapping.get(name, name): tensor for name, tensor in graph.tensors.items()}
    for name, tensor in graph.tensors.items():
        tensor.name = name
    graph.log.append(f"obfuscated {len(graph.ops)} op names and {len(mapping)} tensor names")
