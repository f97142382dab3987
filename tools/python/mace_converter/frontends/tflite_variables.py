"""TFLite resource variables as the engine's state tensors
(mace_converter/states.py, docs/how-to/streaming_state.md).

VAR_HANDLE names a variable (its container and shared_name); READ_VARIABLE
reads its value as it is at that point of the graph, ASSIGN_VARIABLE gives
it a new one. CALL_ONCE runs an init subgraph before the first invocation:
the converter runs it here, when it only assigns constants to variables,
to get their initial values, and refuses anything else. A variable read
before the graph assigns it becomes a state tensor with that initial
value; a read after an assignment is the assigned tensor itself, and the
last value assigned in a run is written back to the state at the end of
the run. Quantized variables hold the real values their integers stand for
(tflite_quant.py), as every quantized activation does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from mace_converter import states
from mace_converter.api import ConversionError
from mace_converter.frontends import tflite_model, tflite_weights

if TYPE_CHECKING:
    from mace_converter.frontends.tflite_frontend import TfliteImporter, TfliteNode

_INIT_OPS = ("VAR_HANDLE", "ASSIGN_VARIABLE")


def _key(op: tflite_model.Operator) -> str:
    container = op.options.Container() if op.options is not None else b""
    shared = op.options.SharedName() if op.options is not None else b""
    return f"{(container or b'').decode('utf-8', 'replace')}/" \
           f"{(shared or b'').decode('utf-8', 'replace')}"


class Variables:
    """The variables of one model as the import goes through its graph."""

    def __init__(self, importer: "TfliteImporter"):
        self.importer = importer
        self.handles: dict[int, str] = {}     # resource tensor -> variable key
        self.current: dict[str, str] = {}     # variable key -> tensor holding its value now
        self.state_of: dict[str, str] = {}    # variable key -> state tensor name
        self.initial = self._run_init_subgraphs()

    def _run_init_subgraphs(self) -> dict[str, np.ndarray]:
        """Initial values by variable key, from the CALL_ONCE subgraphs."""
        model = self.importer.model
        values: dict[str, np.ndarray] = {}
        for op in model.operators:
            if op.op_type != "CALL_ONCE":
                continue
            index = int(op.options.InitSubgraphIndex()) if op.options is not None else -1
            where = (f"TFLite CALL_ONCE operator {op.index} in {model.path.name}: init "
                     f"subgraph {index}")
            if not 0 < index < model.subgraph_count:
                raise ConversionError(f"{where} does not exist (the file has "
                                      f"{model.subgraph_count} subgraphs)")
            values.update(self._init_values(tflite_model.read(model.path, index), where))
        return values

    @staticmethod
    def _init_values(init: tflite_model.TfliteModel, where: str) -> dict[str, np.ndarray]:
        handles, values = {}, {}
        for op in init.operators:
            if op.op_type not in _INIT_OPS:
                raise ConversionError(f"{where} runs {op.op_type} (operator {op.index}); the "
                                      "converter runs an init subgraph only when it assigns "
                                      "constants to variables (VAR_HANDLE, ASSIGN_VARIABLE)")
            if op.op_type == "VAR_HANDLE":
                handles[op.outputs[0]] = _key(op)
                continue
            if len(op.inputs) != 2 or op.inputs[0] not in handles:
                raise ConversionError(f"{where}: ASSIGN_VARIABLE operator {op.index} does not "
                                      "assign a variable of a VAR_HANDLE before it")
            tensor = init.tensors[op.inputs[1]]
            value = init.const(tensor)
            if value is None:
                raise ConversionError(f"{where}: ASSIGN_VARIABLE operator {op.index} assigns "
                                      f"the computed tensor '{tensor.name}'; the converter runs "
                                      "an init subgraph only when it assigns constants")
            if tensor.quant is not None and value.dtype in (np.int8, np.uint8, np.int16):
                value = tflite_weights.dequantize(tensor, value)
            values[handles[op.inputs[0]]] = value
        return values

    def handle(self, node: "TfliteNode") -> None:
        """VAR_HANDLE: a name for the variable; nothing runs."""
        self.handles[node.op.outputs[0]] = _key(node.op)

    def _variable(self, node: "TfliteNode") -> str:
        resource = node.op.inputs[0] if node.op.inputs else -1
        if resource not in self.handles:
            raise node.fail("its resource input is not the output of a VAR_HANDLE")
        return self.handles[resource]

    def read(self, node: "TfliteNode") -> None:
        key = self._variable(node)
        if key not in self.current:
            if key not in self.initial:
                raise node.fail(f"reads variable '{key}' before anything assigns it (no "
                                "CALL_ONCE init subgraph gives it a value)")
            name = self.importer.graph.unique_name(key.strip("/") or "variable")
            states.declare(self.importer.graph, name, self.initial[key], node.where())
            self.state_of[key] = name
            self.current[key] = name
        shape = node.out_shape()
        have = self.importer.graph.shape(self.current[key])
        if tuple(have) != tuple(shape):
            raise node.fail(f"reads variable '{key}' of shape {list(have)} as shape "
                            f"{list(shape)}")
        node.produce("Identity", [self.current[key]], layout="tf")

    def assign(self, node: "TfliteNode") -> None:
        key = self._variable(node)
        if len(node.inputs) != 2:
            raise node.fail("needs inputs [resource, value]")
        value = node.tf(1)
        state = self.state_of.get(key)
        if state is not None and self.importer.graph.shape(value) != \
                self.importer.graph.shape(state):
            raise node.fail(f"assigns '{value}' of shape "
                            f"{list(self.importer.graph.shape(value))} to variable '{key}' of "
                            f"shape {list(self.importer.graph.shape(state))}")
        self.current[key] = value

    def finish(self) -> None:
        """Each state gets the value its variable has at the end of the run."""
        for key, state in self.state_of.items():
            states.assign(self.importer.graph, state, self.current[key])


def register(converter: Callable) -> None:
    """Adds the variable ops to the TFLite converter table (tflite_ops.py)."""
    def variables(node: "TfliteNode") -> Variables:
        return node.importer.variables

    converter("VAR_HANDLE")(lambda node: variables(node).handle(node))
    converter("READ_VARIABLE")(lambda node: variables(node).read(node))
    converter("ASSIGN_VARIABLE")(lambda node: variables(node).assign(node))
