"""TensorFlow frontend: reads a frozen GraphDef (.pb) into the IR without
needing TensorFlow, through the schema in tf_graph.proto.

TensorFlow images are NHWC and the runtime's are NCHW. Each TensorFlow tensor
is tracked with the layout its IR tensor has: "tf" (as TensorFlow has it) or
"nchw" (a 4D NHWC tensor stored transposed). Convolutions, pooling and batch
norm produce "nchw" tensors; element-wise ops, concatenation along a mapped
axis, padding and reductions keep that layout; anything that depends on the
element order (Reshape, graph outputs) gets a Transpose back to "tf" first.
So a graph that is convolutions end to end has one Transpose at its input
and none inside.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from mace_converter import protos
from mace_converter.api import ConversionError, ConvertOptions
from mace_converter.frontends.node import Node
from mace_converter.frontends.tf_const import CONST_EVALUATORS, attr_value
from mace_converter.ir import Graph
from mace_converter.shape_rules import TRANSPOSE_PERM

TO_NCHW, TO_NHWC = [0, 3, 1, 2], [0, 2, 3, 1]
# NHWC axis -> NCHW axis.
NCHW_AXIS = {0: 0, 1: 2, 2: 3, 3: 1}


def canonical(name: str) -> str:
    """'node:0' and 'node' name the same tensor."""
    return name[:-2] if name.endswith(":0") else name


class TfNode(Node):
    """A TensorFlow node with access to the layout tracker."""

    def __init__(self, importer: "TfImporter", proto: Any, index: int):
        try:
            attrs = {key: attr_value(value) for key, value in proto.attr.items()}
        except Exception as error:  # non-UTF-8 strings, tensors that do not fit their shape
            raise ConversionError(f"TensorFlow {proto.op!s} node '{proto.name!s}' (node {index}) "
                                  f"in {importer.graph.source}: malformed attribute: "
                                  f"{type(error).__name__}: {error}") from error
        inputs = [canonical(name) for name in proto.input if not name.startswith("^")]
        super().__init__(importer.graph, proto.op, proto.name, index, inputs,
                         [proto.name], attrs, importer.values, importer.ir_consts,
                         framework="TensorFlow")
        self.importer = importer

    def layout(self, index: int) -> str:
        return self.importer.layouts.get(self.inputs[index], "tf")

    def nchw(self, index: int) -> str:
        """Input `index` (4D, NHWC in TensorFlow) as an NCHW IR tensor."""
        return self.importer.as_layout(self.inputs[index], "nchw", self)

    def tf(self, index: int) -> str:
        """Input `index` as an IR tensor in TensorFlow's own layout."""
        if self.is_const(index):
            return self.tensor(index)
        return self.importer.as_layout(self.inputs[index], "tf", self)

    def tf_shape(self, index: int) -> tuple[int, ...]:
        shape = self.shape(index)
        if self.layout(index) == "nchw":
            return tuple(shape[p] for p in TO_NHWC)
        return shape

    def produce(self, op_type: str, inputs: list[str], args: Optional[dict] = None,
                layout: str = "tf") -> None:
        self.emit_out(op_type, inputs, args)
        self.importer.layouts[self.outputs[0]] = layout


class TfImporter:
    def __init__(self, options: ConvertOptions):
        self.start(options)
        schema = protos.load("tf_graph")
        self.graph_def = schema.GraphDef()
        try:
            self.graph_def.ParseFromString(self.path.read_bytes())
        except Exception as error:
            raise ConversionError(f"{self.path} is not a TensorFlow GraphDef: {error}") from error

    def start(self, options: ConvertOptions) -> None:
        """The empty graph and layout tracker (shared with the TFLite frontend)."""
        self.path = Path(options.model_file)
        self.options = options
        self.graph = Graph(options.model_name, self.path.name)
        self.values: dict[str, np.ndarray] = {}
        self.ir_consts: dict[str, str] = {}
        self.layouts: dict[str, str] = {}
        self.aliases: dict[tuple[str, str], str] = {}
        self.consumed: set[str] = set()

    def as_layout(self, name: str, want: str, node: Node) -> str:
        have = self.layouts.get(name, "tf")
        if name in self.values:
            value = self.values[name]
            if want == "nchw":
                return node.weight(name + "/nchw", np.transpose(value, TO_NCHW))
            return node.tensor(node.inputs.index(name))
        if have == want:
            return name
        key = (name, want)
        if key not in self.aliases:
            shape = self.graph.shape(name)
            if len(shape) != 4:
                raise node.fail(f"input '{name}' has shape {list(shape)} but needs rank 4 (NHWC)")
            perm = TO_NCHW if want == "nchw" else TO_NHWC
            self.aliases[key] = self.graph.add_op(
                "Transpose", [name], 1, name=f"{name}/{want}", args={TRANSPOSE_PERM: perm},
                origin=node.where()).outputs[0]
        return self.aliases[key]

    def run(self) -> Graph:
        from mace_converter.frontends.tf_ops import CONVERTERS
        nodes = {node.name: node for node in self.graph_def.node}
        self._add_inputs(nodes)
        ordered = self._ordered(nodes)
        # Every tensor a converted node or the deployment file reads, so that
        # an op with several outputs knows which of them are used.
        self.consumed = {canonical(spec.name) for spec in self.options.outputs}
        self.consumed |= {canonical(name) for _, proto in ordered for name in proto.input
                          if not name.startswith("^")}
        for index, proto in ordered:
            if proto.name in self.graph.inputs:
                continue
            node = TfNode(self, proto, index)
            try:
                if self._fold(node):
                    continue
                converter = CONVERTERS.get(node.op_type)
                if converter is None:
                    raise node.fail(f"op type {node.op_type} is not supported by the MACE "
                                    "converter")
                converter(node)
            except ConversionError as error:
                if node.where() in str(error):
                    raise
                raise node.fail(str(error)) from error
            except Exception as error:
                raise node.fail(f"malformed node: {type(error).__name__}: {error}") from error
        self._set_outputs()
        return self.graph

    def _ordered(self, nodes: dict[str, Any]) -> list[tuple[int, Any]]:
        """Producers first; only nodes the requested outputs depend on."""
        wanted = [canonical(spec.name).split(":")[0] for spec in self.options.outputs]
        if not wanted:
            raise ConversionError(f"name the output tensors of {self.path.name} in the "
                                  "deployment file")
        order: list[tuple[int, Any]] = []
        state: dict[str, int] = {}
        position = {name: i for i, name in enumerate(nodes)}
        for root in wanted:
            stack = [(root, False)]
            while stack:
                name, done = stack.pop()
                if name not in nodes:
                    raise ConversionError(f"{self.path.name} has no node '{name}'")
                if done:
                    if state.get(name) != 2:
                        state[name] = 2
                        order.append((position[name], nodes[name]))
                    continue
                if state.get(name):
                    continue
                state[name] = 1
                stack.append((name, True))
                if name in self.graph.inputs:
                    continue
                for source in nodes[name].input:
                    # A control input orders side effects and carries no data
                    # (frozen Keras models end in Identity <- "^NoOp").
                    if source.startswith("^"):
                        continue
                    source = source.split(":")[0]
                    if not state.get(source):
                        stack.append((source, False))
        return order

    def _add_inputs(self, nodes: dict[str, Any]) -> None:
        for spec in self.options.inputs:
            name = canonical(spec.name)
            if name not in nodes:
                raise ConversionError(f"input '{spec.name}' is not a node of {self.path.name}")
            self.graph.add_input(name, spec.shape, data_format=spec.data_format)

    def _fold(self, node: TfNode) -> bool:
        if node.op_type == "Const":
            self.values[node.name] = np.asarray(node.attr("value"))
            return True
        if node.op_type == "Shape" and node.inputs:
            self.values[node.name] = np.array(node.tf_shape(0), dtype=np.int32)
            return True
        if node.inputs and all(name in self.values for name in node.inputs) \
                and node.op_type in CONST_EVALUATORS:
            operands = [self.values[name] for name in node.inputs]
            self.values[node.name] = np.asarray(CONST_EVALUATORS[node.op_type](operands,
                                                                               node.attrs))
            return True
        return False

    def _set_outputs(self) -> None:
        outputs = []
        for spec in self.options.outputs:
            name = canonical(spec.name)
            if name in self.values:
                raise ConversionError(f"output '{spec.name}' of {self.path.name} is a constant")
            if name not in self.graph.tensors:
                raise ConversionError(f"output '{spec.name}' is not produced by "
                                      f"{self.path.name}")
            if self.layouts.get(name, "tf") != "tf":
                stored = self.graph.unique_name(name + "/nchw")
                self.graph.rename_tensor(name, stored)
                self.layouts[stored] = "nchw"
                self.aliases = {(stored if k[0] == name else k[0], k[1]): v
                                for k, v in self.aliases.items()}
                self.graph.add_op("Transpose", [stored], [name], name=name + "/nhwc",
                                  args={TRANSPOSE_PERM: TO_NHWC})
            outputs.append(name)
            self.graph.formats[name] = spec.data_format
        self.graph.outputs = outputs


def load(options: ConvertOptions) -> Graph:
    return TfImporter(options).run()
