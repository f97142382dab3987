"""Loads an ONNX file and refuses a model that is not valid ONNX or that the
engine would refuse at load time, naming the node.

Order matters: the engine's structural limits (subgraph nesting first, so
that no recursive walk goes deep) are checked before ONNX's own checker runs
with full_check (strict shape inference). External data is read only from
regular files that lie, symbolic links followed, inside the model's folder.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterator

from mace_converter import files
from mace_converter.api import MAX_DIM, MAX_INPUT_BYTES, MAX_SUBGRAPH_DEPTH, ConversionError

# Ops whose window attributes must be positive (pads non-negative).
_WINDOW_OPS = ("Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool",
               "AveragePool", "LpPool", "MaxUnpool", "MaxRoiPool", "Col2Im")
_CHECKER_NODE = re.compile(r"\(op_type:([^,)]*)(?:, node name: ([^)]*))?\):\s*(.*)")
_CHECKER_NODE_PROTO = re.compile(r"(?:node: name|Name): (\S*) OpType: (\S+)")
_INSIDE_FUNCTION = re.compile(r"^\[ShapeInferenceError\] Inference error\(s\): "
                              r"\(op_type:(\w+)\): \[ShapeInferenceError\] Inference error\(s\): "
                              r"\(op_type:")
_POSITIVE_ATTRS = ("kernel_shape", "strides", "dilations", "pooled_shape")


def load(path: Path, onnx: Any) -> Any:
    """The checked model with its external data loaded."""
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as error:  # protobuf decode errors and the like
        raise ConversionError(f"{path} is not a valid ONNX model: "
                              f"{_first_line(error)}") from None
    check_structure(model, path.name)
    external = _external_locations(model, onnx)
    for tensor_name, location in external:
        _check_external(path, tensor_name, location)
    try:
        if external:
            onnx.external_data_helper.load_external_data_for_model(model, str(path.parent))
    except Exception as error:
        raise ConversionError(f"{path.name}: its external data cannot be read: "
                              f"{_first_line(error)}") from None
    # A model with external data is checked from its file: the checker
    # reads the data itself and so handles models beyond 2 GiB.
    checked = str(path) if external else _shaped(model, onnx)
    try:
        onnx.checker.check_model(checked, full_check=True)
    except Exception as error:
        if not _inside_function(" ".join(str(error).split()), onnx):
            raise ConversionError(f"{path.name} is not a valid ONNX model: "
                                  f"{_checker_message(error)} (onnx.checker)") from None
        # Strict inference failed inside the function body ONNX defines
        # for a standard op (MeanVarianceNormalization's, for one): ONNX's
        # own definition, not the model, so the model gets the plain check.
        try:
            onnx.checker.check_model(checked)
        except Exception as plain_error:
            raise ConversionError(f"{path.name} is not a valid ONNX model: "
                                  f"{_checker_message(plain_error)} (onnx.checker)") from None
    return model


def _shaped(model: Any, onnx: Any) -> Any:
    """`model`, or when a graph output has no shape field (an output of
    unknown rank, which ONNX allows but the checker refuses), a copy with
    the shapes ONNX infers for them, less the outputs whose rank stays
    unknown."""
    if all(info.type.tensor_type.HasField("shape") for info in model.graph.output
           if info.type.HasField("tensor_type")):
        return model
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # the strict check below reports the real problem
        inferred = onnx.ModelProto()
        inferred.CopyFrom(model)
    keep = [info for info in inferred.graph.output
            if not info.type.HasField("tensor_type") or
            info.type.tensor_type.HasField("shape")]
    del inferred.graph.output[:]
    inferred.graph.output.extend(keep)
    return inferred


def check_structure(model: Any, file_name: str) -> None:
    """The engine's limits: subgraph nesting, input dimensions, positive
    windows, and every tensor written by one node only."""
    _check_depth(model.graph, file_name)
    for info in model.graph.input:
        _check_input_dims(info, file_name)
    _check_graph(model.graph, "the graph", {})


def _check_graph(graph: Any, where: str, outer: dict[str, str]) -> None:
    """A tensor has one producer within a graph and the scopes around it
    (sibling subgraphs, such as an If's two branches, may reuse names)."""
    written = dict(outer)
    written.update((info.name, f"an input of {where}") for info in graph.input)
    written.update((tensor.name, f"an initializer of {where}") for tensor in graph.initializer)
    for index, node in enumerate(graph.node):
        label = f"ONNX {node.op_type} node '{node.name}' (node {index} of {where})"
        for name in node.output:
            if not name:
                continue
            if name in written:
                raise ConversionError(f"{label} writes '{name}', which {written[name]} writes "
                                      "too; every tensor needs exactly one producer")
            written[name] = f"node '{node.name}' ({node.op_type})"
        if node.op_type in _WINDOW_OPS and node.domain in ("", "ai.onnx", "com.microsoft"):
            _check_window(node, label)
    for node in graph.node:
        for sub in _subgraphs(node):
            _check_graph(sub, f"the subgraph '{sub.name}' of node '{node.name}'", written)


def _check_depth(graph: Any, file_name: str) -> None:
    """Breadth-first, so a model nested beyond the limit costs no deep
    recursion."""
    level = [graph]
    depth = 0
    while level:
        inner = [attribute_graph for g in level for node in g.node
                 for attribute_graph in _subgraphs(node)]
        if inner:
            depth += 1
            if depth > MAX_SUBGRAPH_DEPTH:
                node = next(node for g in level for node in g.node if list(_subgraphs(node)))
                raise ConversionError(f"{file_name}: ONNX {node.op_type} node '{node.name}' "
                                      f"nests its subgraph {depth} levels deep; the engine runs "
                                      f"at most {MAX_SUBGRAPH_DEPTH}")
        level = inner


def _subgraphs(node: Any) -> Iterator[Any]:
    for attribute in node.attribute:
        if attribute.HasField("g"):
            yield attribute.g
        yield from attribute.graphs


def _check_input_dims(info: Any, file_name: str) -> None:
    if not info.type.HasField("tensor_type"):
        return
    count = 1
    for d, dim in enumerate(info.type.tensor_type.shape.dim):
        # Some exporters (Paddle2ONNX) write -1 for a dynamic dimension, as
        # others write a dim_param: the deployment file gives its size.
        if not dim.HasField("dim_value") or dim.dim_value < 0:
            continue
        if dim.dim_value > MAX_DIM:
            raise ConversionError(f"input '{info.name}' of {file_name} has dimension {d} of "
                                  f"{dim.dim_value}; the engine takes at most {MAX_DIM}")
        count *= dim.dim_value
    if count * 4 > MAX_INPUT_BYTES:
        raise ConversionError(f"input '{info.name}' of {file_name} holds {count} elements, "
                              f"more than the engine's {MAX_INPUT_BYTES} bytes per input")


def _check_window(node: Any, label: str) -> None:
    for attribute in node.attribute:
        values = list(attribute.ints)
        if attribute.name in _POSITIVE_ATTRS and any(v < 1 or v > MAX_DIM for v in values):
            raise ConversionError(f"{label} has {attribute.name} {values}; each must be a "
                                  f"positive size up to {MAX_DIM}")
        if attribute.name in ("pads", "output_padding") and any(
                v < 0 or v > MAX_DIM for v in values):
            raise ConversionError(f"{label} has {attribute.name} {values}; each must be 0 to "
                                  f"{MAX_DIM}")


def _external_locations(model: Any, onnx: Any) -> list[tuple[str, str]]:
    helper = onnx.external_data_helper
    result = []
    for tensor in helper._get_all_tensors(model):  # pylint: disable=protected-access
        if helper.uses_external_data(tensor):
            entries = {entry.key: entry.value for entry in tensor.external_data}
            result.append((tensor.name, entries.get("location", "")))
    return result


def _check_external(path: Path, tensor_name: str, location: str) -> None:
    where = f"{path.name}: initializer '{tensor_name}' keeps its data in '{location}'"
    if not location or os.path.isabs(location) or ".." in Path(location).parts:
        raise ConversionError(f"{where}; external data must be a relative path inside the "
                              "model's folder")
    candidate = path.parent / location
    try:
        inside = files.inside(candidate, path.parent)
        files.regular_file(candidate)
    except files.FileRefused as error:
        raise ConversionError(f"{where}: {error}") from None
    if not inside:
        raise ConversionError(f"{where}, which a symbolic link takes outside the model's "
                              "folder; external data must lie inside it")


def _inside_function(message: str, onnx: Any) -> bool:
    """Whether strict inference failed inside the function body of a
    standard op (an unnamed node nested in an unnamed op that has one)."""
    found = _INSIDE_FUNCTION.search(message)
    if found is None:
        return False
    try:
        schema = onnx.defs.get_schema(found.group(1))
    except Exception:  # not a standard op
        return False
    return bool(schema.has_function or schema.has_context_dependent_function)


def _checker_message(error: BaseException) -> str:
    """The checker's message, led by the node it names."""
    text = " ".join(str(error).split())
    text = _CHECKER_NODE_PROTO.sub(r"ONNX \2 node '\1'", text)
    found = _CHECKER_NODE.search(text)
    if found is None:
        return text[:500]
    op_type, name, problem = found.groups()
    node = f"ONNX {op_type} node '{name}'" if name else f"an ONNX {op_type} node"
    return f"{node}: {problem.replace('[ShapeInferenceError] ', '')}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
