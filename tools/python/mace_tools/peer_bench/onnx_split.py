"""Gives every ONNX Split node explicit output sizes, for pnnx.

An opset-13 Split may leave its sizes out and split evenly. pnnx turns such a
node into an ncnn Slice with no slice list, and ncnn then crashes when it runs
the net. The sizes are measured by running the model once in onnxruntime on
the benchmark input (they can depend on Shape/Reshape chains that static shape
inference does not resolve) and written as the node's `split` input, which
does not change what the model computes.

    python -m mace_tools.peer_bench.onnx_split IN.onnx OUT.onnx INPUT.npy [INPUT.npy ...]

with one input file per graph input, in the graph's order.

Prints the number of nodes it changed; writes OUT.onnx only when it is not 0.
"""
from __future__ import annotations

import sys
from typing import Sequence, Union

import numpy as np


def implicit_splits(model) -> list:
    """Split nodes whose sizes come from an even division."""
    found = []
    for node in model.graph.node:
        if node.op_type != "Split":
            continue
        has_input = len(node.input) > 1 and bool(node.input[1])
        has_attribute = any(a.name == "split" for a in node.attribute)
        if not has_input and not has_attribute:
            found.append(node)
    return found


Feeds = Union[np.ndarray, Sequence[np.ndarray]]


def output_sizes(model, nodes: list, image: Feeds) -> dict[str, list[int]]:
    """Node name -> the size of each output along the split axis; `image` is
    the one input, or one array per graph input in order."""
    import onnx
    import onnxruntime as ort
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    wanted = [name for node in nodes for name in node.output]
    known = {output.name for output in probe.graph.output}
    for name in wanted:
        if name not in known:
            probe.graph.output.append(onnx.ValueInfoProto(name=name))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(probe.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    arrays = [image] if isinstance(image, np.ndarray) else list(image)
    names = [graph_input.name for graph_input in session.get_inputs()]
    if len(arrays) != len(names):
        raise ValueError(f"{len(arrays)} input file(s) for the {len(names)} graph inputs")
    values = session.run(wanted, dict(zip(names, arrays)))
    shapes = dict(zip(wanted, (value.shape for value in values)))
    sizes = {}
    for node in nodes:
        axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
        sizes[node.name] = [int(shapes[name][axis]) for name in node.output]
    return sizes


def make_explicit(model, image: Feeds) -> int:
    from onnx import numpy_helper
    nodes = implicit_splits(model)
    if not nodes:
        return 0
    if any(version.domain in ("", "ai.onnx") and version.version < 13
           for version in model.opset_import):
        raise ValueError("implicit Split sizes before opset 13 are not handled")
    sizes = output_sizes(model, nodes, image)
    for index, node in enumerate(nodes):
        name = f"{node.name or 'split'}_{index}_sizes"
        model.graph.initializer.append(
            numpy_helper.from_array(np.array(sizes[node.name], dtype=np.int64), name))
        if len(node.input) > 1:
            node.input[1] = name
        else:
            node.input.append(name)
        kept = [a for a in node.attribute if a.name != "num_outputs"]
        del node.attribute[:]
        node.attribute.extend(kept)
    return len(nodes)


def main(argv: list[str]) -> int:
    import onnx
    if len(argv) < 3:
        print("usage: python -m mace_tools.peer_bench.onnx_split IN.onnx OUT.onnx INPUT.npy "
              "[INPUT.npy ...]", file=sys.stderr)
        return 2
    source, target, *paths = argv
    model = onnx.load(source)
    # Integer inputs (token ids) keep their type; floats are fed as float32.
    arrays = [np.load(path) for path in paths]
    arrays = [a if a.dtype.kind in "iub" else a.astype(np.float32) for a in arrays]
    try:
        changed = make_explicit(model, arrays)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if changed:
        onnx.save(model, target)
    print(changed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
