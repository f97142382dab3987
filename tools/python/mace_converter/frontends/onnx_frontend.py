"""ONNX frontend: reads an .onnx file (opsets 7 to 22, and older ones whose
ops kept their definitions through opset 7) into the IR.

Nodes are visited in dependency order. A node whose inputs are all known
constants is evaluated on the spot with ONNX's reference implementation, and
Shape of a tensor with a known shape is a constant too, so the shape
arithmetic of PyTorch exports (Shape -> Gather -> Concat -> Reshape) folds
away before any MACE op is emitted. Every other node goes to its converter
in onnx_nn.py or onnx_tensor.py.
"""
from __future__ import annotations

from pathlib import Path
from collections.abc import Iterator
from typing import Any, Optional

import numpy as np

from mace_converter.api import ConversionError, ConvertOptions
from mace_converter.frontends import onnx_more, onnx_nn, onnx_qdq, onnx_tensor  # noqa: F401
from mace_converter.frontends import onnx_control, onnx_generators, onnx_losses  # noqa: F401
from mace_converter.frontends import onnx_bitwise, onnx_recurrent, onnx_reorder  # noqa: F401
from mace_converter.frontends import onnx_detection  # noqa: F401
from mace_converter.frontends import onnx_checks, onnx_dynamic_lstm, onnx_dynamic_quant
from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import CONVERTERS, NEVER_FOLD
from mace_converter.ir import Graph
from mace_converter.shape_rules_detection import shape_depends_on_data

# com.microsoft ops the converter reads (what onnxruntime's quantization
# tools write).
MICROSOFT_OPS = onnx_qdq.MICROSOFT_OPS + onnx_dynamic_quant.MICROSOFT_OPS + \
    onnx_dynamic_lstm.MICROSOFT_OPS

MIN_OPSET, MAX_OPSET = 7, 22


def _onnx():
    try:
        import onnx
        import onnx.numpy_helper
        return onnx
    except ImportError as error:  # pragma: no cover - onnx is in requirements
        raise ConversionError("the onnx package is needed to convert ONNX models "
                              "(pip install -r tools/requirements.txt)") from error


def attributes(node: Any) -> dict[str, Any]:
    onnx = _onnx()
    result = {}
    for attribute in node.attribute:
        value = onnx.helper.get_attribute_value(attribute)
        if isinstance(value, bytes):
            value = value.decode()
        elif isinstance(value, onnx.TensorProto):
            value = onnx.numpy_helper.to_array(value)
        elif isinstance(value, list) and value and isinstance(value[0], bytes):
            value = [v.decode() for v in value]
        result[attribute.name] = value
    return result


def _sorted_nodes(graph: Any, known: set[str]) -> list[tuple[int, Any]]:
    """The nodes in an order where producers come first (the file order when
    it already is one)."""
    pending = list(enumerate(graph.node))
    ready = set(known)
    ordered = []
    while pending:
        rest = []
        for index, node in pending:
            if all(not name or name in ready for name in node.input):
                ordered.append((index, node))
                ready.update(node.output)
            else:
                rest.append((index, node))
        if len(rest) == len(pending):
            index, node = rest[0]
            missing = [n for n in node.input if n and n not in ready]
            raise ConversionError(f"ONNX {node.op_type} node '{node.name}' (node {index}) reads "
                                  f"{missing}, which no node or initializer produces")
        pending = rest
    return ordered


# ONNX element types a graph input or output may have. The engine carries
# them as float32 values (integers exactly up to 2^24; every bfloat16 and
# float8 value exactly), or int32 for integer results such as ArgMax's: the
# caller gives and gets the values, not the type's bits, except that int32,
# int64 and bool inputs and outputs keep their type for the app by default
# (convert._set_app_types; the engine refuses integers beyond 2^24).
# Strings and complex numbers are refused.
_INTEGER_TYPES = {2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
                  9: "bool", 12: "uint32", 13: "uint64", 21: "uint4", 22: "int4"}
_NARROW_FLOAT_TYPES = {16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz",
                       19: "float8e5m2", 20: "float8e5m2fnuz"}
INPUT_TYPES = {1: "float32", 10: "float16", 11: "double", **_NARROW_FLOAT_TYPES,
               **_INTEGER_TYPES}
OUTPUT_TYPES = INPUT_TYPES
# Ops whose result on integers differs from the float computation the
# engine does (integer division truncates; Mod of integers is exact).
# Ops whose integer semantics differ from float: Div truncates.
_INTEGER_SENSITIVE = ("Div",)
# Ops whose output has the element type of their inputs (all of one type)
# or of their data input: integer arithmetic on shapes stays integer, so a
# later Div of it truncates.
_OPERANDS_KEEP_TYPE = ("Add", "Sub", "Mul", "Max", "Min", "Neg", "Abs", "Concat", "Identity")
_DATA_KEEPS_TYPE = ("Gather", "Slice", "Reshape", "Squeeze", "Unsqueeze", "Flatten",
                    "Transpose", "Expand", "Tile")
_TYPE_NAMES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
               7: "int64", 8: "string", 9: "bool", 10: "float16", 11: "double",
               12: "uint32", 13: "uint64", 16: "bfloat16", 17: "float8e4m3fn",
               18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz", 21: "uint4",
               22: "int4"}


def _check_value_type(info: Any, kind: str, file_name: str, allowed: dict[int, str]) -> None:
    """Refuses a graph input or output whose type the engine cannot carry:
    a sequence, map or optional, or a tensor element type it would
    silently reinterpret."""
    if not info.type.HasField("tensor_type"):
        raise ConversionError(f"{kind} '{info.name}' of {file_name} is a "
                              f"{info.type.WhichOneof('value') or 'value of no type'}; MACE "
                              "graph inputs and outputs are tensors")
    elem = info.type.tensor_type.elem_type
    if elem and elem not in allowed:
        raise ConversionError(f"{kind} '{info.name}' of {file_name} has element type "
                              f"{_TYPE_NAMES.get(elem, elem)}; MACE {kind}s may be "
                              f"{', '.join(sorted(set(allowed.values())))}")


class OnnxImporter:
    def __init__(self, options: ConvertOptions):
        onnx = _onnx()
        self.path = Path(options.model_file)
        self.options = options
        self.model = onnx_checks.load(self.path, onnx)
        self.opset = self._opset()
        self.graph = Graph(options.model_name, self.path.name)
        # ONNX element types of the graph inputs, by name (for CastLike).
        self.graph.onnx_input_types = {}
        self.values: dict[str, np.ndarray] = {}
        self.ir_consts: dict[str, str] = {}
        self.folded = 0
        # Graph inputs of an integer type, for the ops whose integer
        # semantics the float engine would not honour.
        self.integer_values: set[str] = set()

    def _opset(self) -> int:
        opsets = {entry.domain: entry.version for entry in self.model.opset_import}
        version = opsets.get("", opsets.get("ai.onnx"))
        if version is None:
            raise ConversionError(f"{self.path} imports no default ONNX opset")
        if version < MIN_OPSET and version >= 1:
            return self._older_opset(int(version))
        if not MIN_OPSET <= version <= MAX_OPSET:
            raise ConversionError(f"{self.path} uses ONNX opset {version}; the converter "
                                  f"supports opsets {MIN_OPSET} to {MAX_OPSET}")
        return int(version)

    def _older_opset(self, version: int) -> int:
        """A model of an opset below MIN_OPSET is read as MIN_OPSET when
        every op it uses has kept, through MIN_OPSET, the definition it had
        at the model's opset."""
        from onnx import defs
        changed = []
        for op_type in sorted({node.op_type for node in _all_nodes(self.model.graph)
                               if node.domain in ("", "ai.onnx")}):
            try:
                since = defs.get_schema(op_type, MIN_OPSET).since_version
            except defs.SchemaError:
                since = MIN_OPSET + 1
            if since > version:
                changed.append(op_type)
        if changed:
            raise ConversionError(
                f"{self.path} uses ONNX opset {version}; the converter supports opsets "
                f"{MIN_OPSET} to {MAX_OPSET}, and {', '.join(changed)} changed its definition "
                f"between opsets {version} and {MIN_OPSET}")
        return MIN_OPSET

    def run(self) -> Graph:
        onnx = _onnx()
        graph_proto = self.model.graph
        for tensor in graph_proto.initializer:
            try:
                self.values[tensor.name] = onnx.numpy_helper.to_array(tensor)
            except Exception as error:
                raise ConversionError(f"initializer '{tensor.name}' in {self.path.name} cannot "
                                      f"be read: {error}") from error
        self._add_inputs(graph_proto)
        self.graph.declared_shapes = _declared_shapes(graph_proto)
        self.graph.onnx_nodes = onnx_nodes(graph_proto)
        self.graph.onnx_value_types = {
            info.name: info.type.tensor_type.elem_type
            for info in list(graph_proto.value_info) + list(graph_proto.output)
            if info.type.HasField("tensor_type") and info.type.tensor_type.elem_type}
        known = set(self.values) | set(self.graph.inputs)
        # Inner QuantizeLinear -> DequantizeLinear pairs become fake
        # quantizations; a conversion for the uint8 pass also reads the
        # params of the QDQ nodes at the graph's edges (onnx_qdq).
        self.graph.qdq_for_uint8 = self.options.quantize is not None
        self.graph.inner_qdq = onnx_qdq.inner_pairs(
            graph_proto, [spec.name for spec in self.options.outputs] or
            [info.name for info in graph_proto.output])
        self.graph.dequantized_values = set()
        self.graph.integer_matmuls = onnx_dynamic_quant.plan(
            graph_proto, [spec.name for spec in self.options.outputs] or
            [info.name for info in graph_proto.output])
        # Fresh names for the ops a node expands into must not take the
        # name of a tensor a later node writes (a node may share its name
        # with its output).
        self.graph.reserve([out for node in graph_proto.node for out in node.output if out])
        for index, node in _sorted_nodes(graph_proto, known):
            self._convert(index, node)
        self._set_outputs(graph_proto)
        # Weight scales by source name -> by the IR constants made of them
        # (a name that is already an IR constant, such as a FullyConnected
        # weight made of a QLinearMatMul's matrix, stays).
        self.graph.imported_weight_scales = {
            self.ir_consts.get(name, name): scales
            for name, scales in self.graph.imported_weight_scales.items()
            if name in self.ir_consts or self.graph.is_const(name)}
        if self.folded:
            self.graph.log.append(f"evaluated {self.folded} ONNX node(s) with constant inputs "
                                  "(shape arithmetic, constant subgraphs)")
        return self.graph

    def onnx_module(self) -> Any:
        return _onnx()

    def child(self, graph: Graph) -> "OnnxImporter":
        """An importer for a subgraph that becomes `graph` (a Loop body, an
        If branch run by the engine): same file, opset and options, and
        values of its own."""
        child = object.__new__(OnnxImporter)
        child.path, child.options, child.model, child.opset = (
            self.path, self.options, self.model, self.opset)
        graph.onnx_input_types = {}
        child.graph = graph
        child.values, child.ir_consts, child.folded = {}, {}, 0
        child.integer_values = set()
        return child

    def convert_subgraph(self, graph_proto: Any, index: int) -> None:
        """Converts the nodes of a subgraph (an If's taken branch) into this
        graph: its initializers join the constants, and its nodes may read
        every tensor of the enclosing scopes. `index` is the enclosing
        node's, for messages."""
        onnx = _onnx()
        for tensor in graph_proto.initializer:
            self.values[tensor.name] = onnx.numpy_helper.to_array(tensor)
        known = set(self.values) | set(self.graph.tensors)
        for _, node in _sorted_nodes(graph_proto, known):
            self._convert(index, node)

    def _add_inputs(self, graph_proto: Any) -> None:
        declared = {}
        for info in graph_proto.input:
            if info.name in self.values:
                continue
            _check_value_type(info, "input", self.path.name, INPUT_TYPES)
            if info.type.tensor_type.elem_type in _INTEGER_TYPES:
                self.integer_values.add(info.name)
            self.graph.onnx_input_types[info.name] = info.type.tensor_type.elem_type
            dims = [d.dim_value if d.HasField("dim_value") else -1
                    for d in info.type.tensor_type.shape.dim]
            declared[info.name] = dims
        specs = self.options.inputs or []
        if not specs:
            for name, dims in declared.items():
                if any(d <= 0 for d in dims):
                    raise ConversionError(f"input '{name}' of {self.path.name} has a dynamic "
                                          f"shape {dims}; give its shape in the deployment file")
                self.graph.add_input(name, dims)
            return
        for spec in specs:
            if spec.name not in declared:
                raise ConversionError(f"input '{spec.name}' is not an input of {self.path.name}"
                                      f" (its inputs are {', '.join(declared) or 'none'})")
            dims = declared[spec.name]
            if len(dims) != len(spec.shape) or any(
                    d > 0 and d != s for d, s in zip(dims, spec.shape)):
                raise ConversionError(f"input '{spec.name}' has shape {list(spec.shape)} in the "
                                      f"deployment file but {dims} in {self.path.name}")
            # Only a symbolic dimension of the ONNX model may vary at run time.
            for d, (onnx_dim, planned, largest) in enumerate(
                    zip(dims, spec.shape, spec.max_shape or spec.shape)):
                if largest != planned and onnx_dim > 0:
                    raise ConversionError(
                        f"input '{spec.name}': dimension {d} is fixed at {onnx_dim} in "
                        f"{self.path.name}, so its max shape {list(spec.max_shape)} cannot make "
                        "it dynamic; only symbolic dimensions can be")
            self.graph.add_input(spec.name, spec.shape, data_format=spec.data_format)

    def _set_outputs(self, graph_proto: Any) -> None:
        for info in graph_proto.output:
            _check_value_type(info, "output", self.path.name, OUTPUT_TYPES)
        names = [spec.name for spec in self.options.outputs] or \
            [info.name for info in graph_proto.output]
        for name in names:
            if name in self.values:
                self._constant_output(name)
        self.graph.check_outputs(names)
        self.graph.outputs = list(names)
        for spec in self.options.outputs:
            self.graph.formats[spec.name] = spec.data_format

    def _constant_output(self, name: str) -> None:
        """An output known at conversion (a Shape or Size of a fixed shape, a
        Constant) becomes an Identity of the value, which the engine copies
        out on every run."""
        value = np.asarray(self.values[name])
        if value.dtype.kind not in "fiub" or value.size == 0:
            raise ConversionError(f"output '{name}' of {self.path.name} is a constant of type "
                                  f"{value.dtype} and shape {list(value.shape)}, which a MACE "
                                  "output cannot hold")
        const = self.graph.add_const(f"{name}_value", value.astype(np.float32))
        self.graph.add_op("Identity", [const], [name], name=name,
                          origin=f"constant output '{name}' of {self.path.name}")

    def _convert(self, index: int, proto: Any) -> None:
        attrs = attributes(proto)
        if proto.domain not in ("", "ai.onnx") and not (
                proto.domain == "com.microsoft" and proto.op_type in MICROSOFT_OPS):
            raise ConversionError(f"ONNX {proto.op_type} node '{proto.name}' (node {index}) in "
                                  f"{self.path.name}: op domain '{proto.domain}' is not supported")
        node = Node(self.graph, proto.op_type, proto.name, index, proto.input, proto.output,
                    attrs, self.values, self.ir_consts, self.opset)
        try:
            if node.op_type == "If":
                onnx_control.inline_if(self, node, proto)
                return
            if node.op_type == "Loop":
                onnx_control.convert_loop(self, node)
                return
            if node.op_type == "Scan":
                onnx_control.convert_scan(self, node)
                return
            if onnx_dynamic_quant.integer_node(node) or self._fold(node, proto):
                return
            integer = [name for name in proto.input if self._integer_type(name)]
            if node.op_type in _INTEGER_SENSITIVE and integer:
                onnx_nn.integer_division(node, self._integer_type(integer[0]))
                self._note_integer_outputs(node, self._integer_type(integer[0]))
                return
            converter = CONVERTERS.get(node.op_type)
            if converter is None:
                raise node.fail(f"op type {node.op_type} is not supported by the MACE "
                                "converter")
            converter(node)
            keeps = proto.input[:1] if node.op_type in _DATA_KEEPS_TYPE else \
                proto.input if node.op_type in _OPERANDS_KEEP_TYPE else []
            typed = [self._integer_type(name) for name in keeps if name]
            typed = [elem for elem in typed if elem]
            if typed:
                self._note_integer_outputs(node, typed[0])
        except ConversionError as error:
            if node.where() in str(error):
                raise
            raise node.fail(str(error)) from error
        except Exception as error:  # malformed attributes, wrong input counts, ...
            raise node.fail(f"malformed node: {type(error).__name__}: {error}") from error

    def _integer_type(self, name: str) -> Optional[int]:
        """The ONNX integer element type of a computed tensor known to hold
        integers (an integer graph input, or what integer arithmetic made
        of one); None otherwise. (A Div by an integer constant alone is
        folded or follows its computed operand.)"""
        if name in self.integer_values:
            return self.graph.onnx_input_types.get(name)
        return None

    def _note_integer_outputs(self, node: Node, elem: Optional[int]) -> None:
        for name in node.outputs:
            if name and name not in self.values:
                self.integer_values.add(name)
                self.graph.onnx_input_types[name] = elem

    def _run_time_shape(self, node: Node) -> None:
        """Shape of a tensor whose shape is known only at run time: the
        vector its producer computes (Graph.run_time_shapes)."""
        make = self.graph.run_time_shapes.get(node.inputs[0])
        if node.op_type != "Shape" or make is None or \
                node.attr("start", 0) != 0 or node.attr("end") is not None:
            raise node.fail(f"the shape of '{node.inputs[0]}' is known only at run time and "
                            f"this {node.op_type} of it cannot be computed")
        node.emit_out("Identity", [make(node)])
        self.integer_values.add(node.outputs[0])
        self.graph.onnx_input_types[node.outputs[0]] = 7   # int64

    def _fold(self, node: Node, proto: Any) -> bool:
        """Evaluates the node now if its result is a constant."""
        if node.op_type in ("Shape", "Size") and node.inputs and \
                node.inputs[0] in self.graph.run_time_shaped:
            self._run_time_shape(node)
            return True
        if node.op_type in ("Shape", "Size"):
            if node.inputs and node.inputs[0] in self.graph.tensors and \
                    shape_depends_on_data(self.graph, node.inputs[0]):
                raise node.fail(f"the shape of '{node.inputs[0]}' depends on values computed "
                                "at run time (NonMaxSuppression); the converter folds "
                                f"{node.op_type} to a constant, which would be wrong")
            shape = np.array(node.shape(0), dtype=np.int64)
            if node.op_type == "Size":
                value = np.array(np.prod(shape), dtype=np.int64)
            else:
                start, end = node.attr("start", 0), node.attr("end", None)
                value = shape[start:end]
            self.values[node.outputs[0]] = value
            return True
        if node.op_type == "Constant":
            self.values[node.outputs[0]] = _constant_value(node)
            return True
        if node.op_type == "DequantizeLinear" and node.is_const(0):
            self.values[node.outputs[0]] = onnx_qdq.dequantize_const(node)
            onnx_qdq.record_weight_scales(node)
            self.folded += 1
            return True
        inputs = [name for name in node.inputs if name]
        if node.op_type in NEVER_FOLD or not inputs or \
                not all(name in self.values for name in inputs):
            return False
        from mace_converter.frontends.onnx_fold import evaluate
        try:
            results = evaluate(proto, self.values, self.opset)
        except ConversionError:
            if node.op_type in CONVERTERS:   # emit MACE ops; the IR folds them later
                return False
            raise
        for name, value in zip(node.outputs, results):
            if name:
                self.values[name] = value
        self.folded += 1
        return True


def _all_nodes(graph_proto: Any) -> Iterator[Any]:
    """The nodes of a graph and of every subgraph."""
    for node in graph_proto.node:
        yield node
        for attr in node.attribute:
            for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                yield from _all_nodes(sub)


def onnx_nodes(graph_proto: Any) -> list[tuple[str, list[str], list[str]]]:
    """Each node's op type, inputs and outputs (onnx_shape_flow reads them)."""
    return [(n.op_type, list(n.input), list(n.output)) for n in graph_proto.node]


def _declared_shapes(graph_proto: Any) -> dict[str, tuple[int, ...]]:
    """The fully known shapes the model declares for graph outputs and
    intermediate tensors (value_info)."""
    shapes = {}
    for info in list(graph_proto.value_info) + list(graph_proto.output):
        if not info.type.HasField("tensor_type") or \
                not info.type.tensor_type.HasField("shape"):
            continue
        dims = info.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") and d.dim_value >= 0 for d in dims):
            shapes[info.name] = tuple(int(d.dim_value) for d in dims)
    # An op that keeps its input's shape (ONNX's expanded functions put Cast,
    # Log or Sqrt after a Reduce) passes a declared shape back to its input.
    for node in reversed(graph_proto.node):
        if node.op_type in _SAME_SHAPE_OPS and node.domain in ("", "ai.onnx") and \
                node.input and node.output and node.output[0] in shapes and \
                node.input[0] not in shapes:
            shapes[node.input[0]] = shapes[node.output[0]]
    return shapes


# Elementwise ops whose output has input 0's shape.
_SAME_SHAPE_OPS = {"Abs", "Cast", "CastLike", "Ceil", "Exp", "Floor", "Identity", "Log", "Neg",
                   "Reciprocal", "Relu", "Sigmoid", "Sqrt", "Tanh"}


def _constant_value(node: Node) -> np.ndarray:
    for key, dtype in (("value", None), ("value_float", np.float32),
                       ("value_floats", np.float32), ("value_int", np.int64),
                       ("value_ints", np.int64)):
        if key in node.attrs:
            return np.asarray(node.attrs[key], dtype=dtype)
    raise node.fail("Constant without a value, value_float(s) or value_int(s) attribute "
                    "is not supported")


def load(options: ConvertOptions) -> Graph:
    return OnnxImporter(options).run()
