"""ONNX control flow.

An If whose condition is a constant at conversion (an initializer, or folded
from Shape / Constant arithmetic) is replaced by the nodes of the branch it
takes. An If with a computed condition, and a Loop, become MACE If / Loop ops
that run subgraphs in the engine (docs/reference/onnx_conversion.md#control-flow):

* each ONNX subgraph is converted on its own into an IR graph, through the
  whole transform pipeline, and appended to the top graph's `subgraphs`;
  the op's then_branch / else_branch / body argument is its index;
* the values a subgraph reads from enclosing scopes are passed explicitly:
  constants become the subgraph's own constants, computed tensors become
  extra op inputs bound to extra subgraph inputs (after the formal ones),
  so a subgraph never names a tensor of another graph.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.frontends.node import Node
from mace_converter.ir import FLOAT32, Graph

# What a Loop may run when the model sets no bound of its own (the engine's
# default too); the engine stops a longer loop with an error.
DEFAULT_MAX_ITERATIONS = 1 << 20


def inline_if(importer: Any, node: Node, proto: Any) -> None:
    """Converts an If: the taken branch in its place when the condition is a
    constant, else a MACE If op running both branches as subgraphs."""
    if not node.has_input(0):
        raise node.fail("If has no condition input")
    if not node.is_const(0):
        convert_if(importer, node)
        return
    condition = np.asarray(node.const(0, "cond"))
    if condition.size != 1:
        raise node.fail(f"If's condition has {condition.size} elements; it needs one")
    taken = "then_branch" if bool(condition.reshape(-1)[0]) else "else_branch"
    branch = node.attr(taken)
    if branch is None:
        raise node.fail(f"If has no {taken}")
    importer.convert_subgraph(branch, node.index)
    outputs = [info.name for info in branch.output]
    if len(outputs) != len(node.outputs):
        raise node.fail(f"If's {taken} has {len(outputs)} outputs but the node has "
                        f"{len(node.outputs)}")
    for source, target in zip(outputs, node.outputs):
        if not target:
            continue
        if source in node.values:
            node.values[target] = node.values[source]
        elif node.graph.is_const(source):
            node.values[target] = node.graph.const(source)
        else:
            if source not in node.graph.tensors:
                raise node.fail(f"If's {taken} output '{source}' is not produced in the branch")
            node.emit("Identity", [source], outputs=[target])


def free_names(graph_proto: Any) -> list[str]:
    """The names `graph_proto` (and the subgraphs inside it) reads from
    enclosing scopes, in order of first use."""
    defined = {info.name for info in graph_proto.input}
    defined.update(t.name for t in graph_proto.initializer)
    free: list[str] = []

    def use(name: str) -> None:
        if name and name not in defined and name not in free:
            free.append(name)

    for node in graph_proto.node:
        for name in node.input:
            use(name)
        for attr in node.attribute:
            for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                for name in free_names(sub):
                    use(name)
        defined.update(node.output)
    for info in graph_proto.output:
        use(info.name)
    return free


def _captures(importer: Any, node: Node, graph_protos: list[Any]) -> list[str]:
    """The computed tensors of this scope the subgraphs read (constants are
    copied into each subgraph instead)."""
    captured: list[str] = []
    for graph_proto in graph_protos:
        for name in free_names(graph_proto):
            if name in importer.values or name in captured:
                continue
            if name not in importer.graph.tensors:
                raise node.fail(f"subgraph '{graph_proto.name}' reads '{name}', which no node, "
                                "input or initializer of the enclosing graphs produces")
            captured.append(name)
    return captured


def _subgraph(importer: Any, node: Node, graph_proto: Any, formal: list[tuple[str, tuple, str]],
              captured: list[str]) -> int:
    """Converts `graph_proto` into an IR graph whose inputs are `formal`
    (name, shape, dtype) and then `captured` (tensors of this scope), runs
    the transform pipeline on it, and returns its index in the top graph's
    subgraph list."""
    from mace_converter.frontends.onnx_frontend import (_declared_shapes, _sorted_nodes,
                                                         onnx_nodes)
    from mace_converter.transforms import run_pipeline
    onnx = importer.onnx_module()
    top = importer.graph
    graph = Graph(f"{top.name}/{graph_proto.name or node.name}", top.source)
    graph.subgraphs = top.subgraphs   # one list, on the top graph
    sub = importer.child(graph)
    for tensor in graph_proto.initializer:
        sub.values[tensor.name] = onnx.numpy_helper.to_array(tensor)
    for name in free_names(graph_proto):
        if name in importer.values:
            sub.values[name] = importer.values[name]
    for name, shape, dtype in formal:
        graph.add_input(name, shape, dtype, data_format="NONE")
    for name in captured:
        tensor = top_tensor(importer, name)
        graph.add_input(name, tensor.shape, tensor.dtype, data_format="NONE")
        if name in importer.integer_values:
            sub.integer_values.add(name)
    graph.declared_shapes = _declared_shapes(graph_proto)
    graph.onnx_nodes = onnx_nodes(graph_proto)
    known = set(sub.values) | set(graph.inputs)
    for _, inner in _sorted_nodes(graph_proto, known):
        sub._convert(node.index, inner)
    outputs = []
    for info in graph_proto.output:
        name = info.name
        if name in sub.values:
            # A constant result: an Identity of the value, run each time.
            const = graph.add_const(f"{name}_value", np.asarray(sub.values[name]))
            name = graph.unique_name(f"{info.name}_out")
            graph.add_op("Identity", [const], [name], origin=node.where())
        elif name in graph.inputs or name in outputs:
            # A subgraph input passed through: its own tensor, so the engine
            # never copies a value onto itself.
            source, name = name, graph.unique_name(f"{name}_out")
            graph.add_op("Identity", [source], [name], origin=node.where())
        elif name not in graph.tensors:
            raise node.fail(f"subgraph '{graph_proto.name}' output '{name}' is not produced")
        outputs.append(name)
    graph.outputs = outputs
    run_pipeline(graph, importer.options)
    top.subgraphs.append(graph)
    return len(top.subgraphs) - 1


def top_tensor(importer: Any, name: str):
    tensor = importer.graph.tensor(name)
    if tensor.shape is None:
        raise ConversionError(f"the shape of '{name}', which a subgraph reads, is unknown")
    return tensor


def convert_if(importer: Any, node: Node) -> None:
    branches = [node.attr("then_branch"), node.attr("else_branch")]
    if any(b is None for b in branches):
        raise node.fail("If needs both then_branch and else_branch")
    for branch in branches:
        if len(branch.output) != len(node.outputs):
            raise node.fail(f"If's branch '{branch.name}' has {len(branch.output)} outputs but "
                            f"the node has {len(node.outputs)}")
    cond = _operand(importer, node, 0, "cond")
    captured = _captures(importer, node, branches)
    then_index = _subgraph(importer, node, branches[0], [], captured)
    else_index = _subgraph(importer, node, branches[1], [], captured)
    then_graph, else_graph = (importer.graph.subgraphs[i] for i in (then_index, else_index))
    shapes, dtypes = [], []
    for k, (a, b) in enumerate(zip(then_graph.outputs, else_graph.outputs)):
        sa, sb = then_graph.shape(a), else_graph.shape(b)
        if sa != sb:
            raise node.fail(f"If output {k} is {list(sa)} in then_branch but {list(sb)} in "
                            "else_branch; the engine plans memory once, so both branches "
                            "must give the same shape")
        da, db = then_graph.tensor(a).dtype, else_graph.tensor(b).dtype
        if da != db:
            raise node.fail(f"If output {k} is {da} in then_branch but {db} in else_branch")
        shapes.append(sa)
        dtypes.append(da)
    outputs = [name or importer.graph.unique_name(f"{node.name}_unused{k}")
               for k, name in enumerate(node.outputs)]
    op = node.emit("If", [cond] + captured,
                   args={"then_branch": then_index, "else_branch": else_index},
                   outputs=outputs, planned=shapes)
    _set_dtypes(importer.graph, op, dtypes)


def _operand(importer: Any, node: Node, index: int, what: str) -> str:
    """Input `index` as an IR tensor name ('' when absent): a constant
    becomes a graph constant."""
    if not node.has_input(index):
        return ""
    name = node.inputs[index]
    if name in importer.values:
        value = np.asarray(importer.values[name])
        if value.dtype == np.bool_:
            value = value.astype(np.float32)
        return importer.graph.add_const(f"{node.name}_{what}", value.astype(np.float32))
    top_tensor(importer, name)
    return name


def _set_dtypes(graph: Graph, op: Any, dtypes: list[str]) -> None:
    op.output_dtypes = list(dtypes)
    for name, dtype in zip(op.outputs, dtypes):
        graph.tensor(name).dtype = dtype


def convert_loop(importer: Any, node: Node) -> None:
    body = node.attr("body")
    if body is None:
        raise node.fail("Loop has no body")
    carried = len(node.inputs) - 2
    if carried < 0:
        raise node.fail("Loop needs the inputs M and cond (either may be empty)")
    scans = len(body.output) - 1 - carried
    if scans < 0 or len(body.input) != 2 + carried or len(node.outputs) != carried + scans:
        raise node.fail(f"Loop body has {len(body.input)} inputs and {len(body.output)} outputs"
                        f", which do not fit {carried} loop-carried values and "
                        f"{len(node.outputs)} outputs")
    trip = _operand(importer, node, 0, "trip_count")
    cond = _operand(importer, node, 1, "cond")
    initial = [_operand(importer, node, 2 + k, f"v{k}") for k in range(carried)]
    if any(not name for name in initial):
        raise node.fail("a loop-carried initial value is empty")
    captured = _captures(importer, node, [body])
    formal = [(body.input[0].name, (), FLOAT32), (body.input[1].name, (), FLOAT32)]
    for k, name in enumerate(initial):
        tensor = importer.graph.tensor(name)
        formal.append((body.input[2 + k].name, tensor.shape, tensor.dtype))
    index = _subgraph(importer, node, body, formal, captured)
    graph = importer.graph.subgraphs[index]
    shapes, dtypes = [], []
    for k, name in enumerate(initial):
        shape = graph.shape(graph.outputs[1 + k])
        if shape != importer.graph.shape(name):
            raise node.fail(f"Loop-carried value {k} enters the body as "
                            f"{list(importer.graph.shape(name))} but leaves it as {list(shape)}"
                            "; the engine plans memory once, so it must keep its shape")
        shapes.append(shape)
        dtypes.append(graph.tensor(graph.outputs[1 + k]).dtype)
    if scans:
        count = _planned_iterations(importer, node, carried, trip, cond)
        for j in range(scans):
            slice_name = graph.outputs[1 + carried + j]
            shapes.append((count,) + tuple(graph.shape(slice_name)))
            dtypes.append(graph.tensor(slice_name).dtype)
    outputs = [name or importer.graph.unique_name(f"{node.name}_unused{k}")
               for k, name in enumerate(node.outputs)]
    op = node.emit("Loop", [trip, cond] + initial + captured,
                   args={"body": index, "loop_carried": carried,
                         "max_iterations": DEFAULT_MAX_ITERATIONS},
                   outputs=outputs, planned=shapes)
    _set_dtypes(importer.graph, op, dtypes)


def _planned_iterations(importer: Any, node: Node, carried: int, trip: str, cond: str) -> int:
    """The iterations a Loop's scan outputs are planned for: the first
    dimension the model declares for them, else a constant trip count."""
    for name in node.outputs[carried:]:
        shape = importer.graph.declared_shapes.get(name)
        if shape:
            return int(shape[0])
    if trip and importer.graph.is_const(trip):
        count = int(np.asarray(importer.graph.const(trip)).reshape(-1)[0])
        if 0 <= count <= DEFAULT_MAX_ITERATIONS:
            return count
    raise node.fail("Loop has scan outputs but neither a declared output shape nor a constant "
                    "trip count; the engine plans their memory once, for a known number of "
                    "iterations")


def convert_scan(importer: Any, node: Node) -> None:
    """Scan (opset 9 on) over axis 0, forwards: the engine's Scan op."""
    if importer.opset < 9:
        _convert_scan8(importer, node)
        return
    body = node.attr("body")
    scanned = int(node.attr("num_scan_inputs", 0) or 0)
    if body is None or scanned < 1:
        raise node.fail("Scan needs a body and num_scan_inputs >= 1")
    for key in ("scan_input_axes", "scan_input_directions", "scan_output_axes",
                "scan_output_directions"):
        if any(int(v) != 0 for v in (node.attr(key) or [])):
            raise node.fail(f"Scan with {key} {list(node.attr(key))} is not supported; the "
                            "engine scans along axis 0, forwards")
    states = len(node.inputs) - scanned
    _check_scan_body(node, body, len(node.inputs), states)
    operands = [_operand(importer, node, k, f"in{k}") for k in range(len(node.inputs))]
    if any(not name for name in operands):
        raise node.fail("a Scan input is empty")
    _emit_scan(importer, node, body, operands, states, scanned, list(node.outputs))


def _check_scan_body(node: Node, body: Any, inputs: int, states: int) -> None:
    if states < 0 or len(node.outputs) < states or len(body.input) != inputs or \
            len(body.output) != len(node.outputs):
        raise node.fail(f"Scan body has {len(body.input)} inputs and {len(body.output)} outputs"
                        f", which do not fit {inputs} inputs and {len(node.outputs)} outputs")


def _emit_scan(importer: Any, node: Node, body: Any, operands: list[str], states: int,
               scanned: int, outputs: list[str], index: int = -1) -> int:
    """Emits an engine Scan of `body` over `operands` (states, then inputs
    scanned along axis 0) into `outputs` ('' for unused ones). The body is
    converted unless `index` names it already; returns its index."""
    formal, steps = [], None
    for k, name in enumerate(operands):
        tensor = importer.graph.tensor(name)
        shape = tuple(importer.graph.shape(name))
        if k >= states:
            if not shape or (steps is not None and shape[0] != steps):
                raise node.fail(f"scanned input '{name}' has shape {list(shape)}; "
                                "scanned inputs need one first dimension in common")
            steps, shape = shape[0], shape[1:]
        formal.append((body.input[k].name, shape, tensor.dtype))
    captured = _captures(importer, node, [body])
    if index < 0:
        index = _subgraph(importer, node, body, formal, captured)
    graph = importer.graph.subgraphs[index]
    shapes, dtypes = [], []
    for k in range(states):
        shape = graph.shape(graph.outputs[k])
        if shape != formal[k][1]:
            raise node.fail(f"Scan state {k} enters the body as {list(formal[k][1])} but leaves "
                            f"it as {list(shape)}; the engine plans memory once, so it must "
                            "keep its shape")
        shapes.append(shape)
        dtypes.append(graph.tensor(graph.outputs[k]).dtype)
    for k in range(states, len(outputs)):
        shapes.append((steps,) + tuple(graph.shape(graph.outputs[k])))
        dtypes.append(graph.tensor(graph.outputs[k]).dtype)
    names = [name or importer.graph.unique_name(f"{node.name}_unused{k}")
             for k, name in enumerate(outputs)]
    op = node.emit("Scan", operands + captured,
                   args={"body": index, "loop_carried": states, "num_scan_inputs": scanned},
                   outputs=names, planned=shapes)
    _set_dtypes(importer.graph, op, dtypes)
    return index


def _convert_scan8(importer: Any, node: Node) -> None:
    """Scan of opset 8: every input and output has a leading batch axis and
    scanned inputs and outputs scan along axis 1. Each batch entry is a Scan
    of its own, all running the one converted body: the inputs are split
    along the batch axis and the per-entry results concatenated back."""
    body = node.attr("body")
    scanned = int(node.attr("num_scan_inputs", 0) or 0)
    if body is None or scanned < 1:
        raise node.fail("Scan needs a body and num_scan_inputs >= 1")
    if any(int(v) != 0 for v in (node.attr("directions") or [])):
        raise node.fail(f"Scan with directions {list(node.attr('directions'))} is not "
                        "supported; the engine scans forwards")
    count = len(node.inputs) - 1
    states = count - scanned
    _check_scan_body(node, body, count, states)
    operands = [_operand(importer, node, 1 + k, f"in{k}") for k in range(count)]
    if any(not name for name in operands):
        raise node.fail("a Scan input is empty")
    shapes = [tuple(importer.graph.shape(name)) for name in operands]
    if any(not shape for shape in shapes) or len({shape[0] for shape in shapes}) != 1:
        raise node.fail(f"Scan inputs have shapes {[list(s) for s in shapes]}; opset 8 needs "
                        "one leading batch dimension in common")
    batch = shapes[0][0]
    if any(len(shape) < 2 for shape in shapes[states:]):
        raise node.fail("a scanned input needs a batch and a sequence axis")
    steps = shapes[states][1]
    if node.has_input(0):
        if not node.is_const(0):
            raise node.fail("sequence_lens computed at run time is not supported; the engine "
                            "scans every batch entry over the whole sequence")
        lengths = np.asarray(node.const(0, "sequence_lens")).reshape(-1)
        if lengths.size != batch or np.any(lengths != steps):
            raise node.fail(f"sequence_lens {lengths.tolist()} differ from the sequence length "
                            f"{steps}; only whole sequences are supported")
    # The operands of each batch entry, without the batch axis.
    entries: list[list[str]] = [[] for _ in range(batch)]
    for name, shape in zip(operands, shapes):
        parts = [name] if batch == 1 else node.emit(
            "Split", [name], {"axis": 0, "split": [1] * batch}, count=batch).outputs
        for b, part in enumerate(parts):
            entries[b].append(node.emit("Reshape", [part], {"shape": list(shape[1:])}).outputs[0])
    index = -1
    results: list[list[str]] = [[] for _ in node.outputs]
    for b in range(batch):
        outs = [importer.graph.unique_name(f"{node.name}_entry{b}_{k}")
                for k in range(len(node.outputs))]
        index = _emit_scan(importer, node, body, entries[b], states, scanned, outs, index)
        for k, name in enumerate(outs):
            shape = importer.graph.shape(name)
            results[k].append(node.emit("Reshape", [name],
                                        {"shape": [1] + list(shape)}).outputs[0])
    for k, target in enumerate(node.outputs):
        if not target:
            continue
        if batch == 1:
            node.emit("Identity", results[k], outputs=[target])
        else:
            node.emit("Concat", results[k], {"axis": 0}, outputs=[target])
