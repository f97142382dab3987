"""What a frontend's per-op converter sees of the node it converts: its
attributes, its inputs as constants or graph tensors, and helpers that emit
IR ops labelled with the node for error messages."""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.ir import Graph, Op


class Node:
    """One source-framework node being converted."""

    def __init__(self, graph: Graph, op_type: str, name: str, index: int,
                 inputs: Sequence[str], outputs: Sequence[str], attrs: dict[str, Any],
                 values: dict[str, np.ndarray], ir_consts: dict[str, str], opset: int = 0,
                 framework: str = "ONNX"):
        # Protobuf hands out a string field that is not UTF-8 as bytes.
        texts = [("op type", op_type), ("name", name)] + [("input", v) for v in inputs] + \
            [("output", v) for v in outputs]
        for what, value in texts:
            if not isinstance(value, str):
                raise ConversionError(f"{framework} node {index} in {graph.source}: its {what} "
                                      f"{value!r} is not UTF-8 text")
        self.graph = graph
        self.op_type = op_type
        self.name = name or f"{op_type.lower()}_{index}"
        self.index = index
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.attrs = attrs
        self.values = values           # known constants, by source tensor name
        self.opset = opset
        self.framework = framework
        self.ir_consts = ir_consts     # source constant name -> IR constant

    # ---- messages ------------------------------------------------------
    def where(self) -> str:
        source = f" in {self.graph.source}" if self.graph.source else ""
        return f"{self.framework} {self.op_type} node '{self.name}' (node {self.index}){source}"

    def fail(self, message: str) -> ConversionError:
        return ConversionError(f"{self.where()}: {message}")

    # ---- attributes ----------------------------------------------------
    def attr(self, key: str, default: Any = None) -> Any:
        return self.attrs.get(key, default)

    def ints(self, key: str, default: Optional[Sequence[int]] = None) -> list[int]:
        value = self.attrs.get(key, default)
        return [int(v) for v in value] if value is not None else []

    # ---- inputs --------------------------------------------------------
    def has_input(self, index: int) -> bool:
        return index < len(self.inputs) and bool(self.inputs[index])

    def is_const(self, index: int) -> bool:
        return self.has_input(index) and self.inputs[index] in self.values

    def known(self, index: int) -> bool:
        """Whether input `index` is present and a constant at conversion
        (an initializer, a folded subgraph or a constant IR tensor)."""
        return self.has_input(index) and (self.inputs[index] in self.values or
                                           self.graph.is_const(self.inputs[index]))

    def const(self, index: int, what: str = "") -> np.ndarray:
        if not self.has_input(index):
            raise self.fail(f"input {index}{' (' + what + ')' if what else ''} is missing")
        name = self.inputs[index]
        if name in self.values:
            return self.values[name]
        if self.graph.is_const(name):
            return self.graph.const(name)
        raise self.fail(f"input {index} '{name}'{' (' + what + ')' if what else ''} must be "
                        "a constant; this converter needs static shapes and weights")

    def optional_const(self, index: int, what: str = "") -> Optional[np.ndarray]:
        if not self.has_input(index):
            return None
        value = self.const(index, what)
        return value if value.size else None

    def shape(self, index: int) -> tuple[int, ...]:
        name = self.inputs[index]
        if name in self.values:
            return tuple(self.values[name].shape)
        return self.graph.shape(name)

    def rank(self, index: int = 0) -> int:
        return len(self.shape(index))

    def tensor(self, index: int) -> str:
        """The IR tensor of input `index`, adding constants to the graph."""
        name = self.inputs[index]
        if name in self.values:
            if name not in self.ir_consts:
                self.ir_consts[name] = self.graph.add_const(name, self.values[name])
            return self.ir_consts[name]
        if name not in self.graph.tensors:
            raise self.fail(f"input '{name}' is not produced by any earlier node")
        return name

    def weight(self, name: str, value: np.ndarray) -> str:
        """Adds a constant derived from the model (a reordered filter, a
        folded scale) under a fresh name based on `name`."""
        return self.graph.add_const(name, value)

    # ---- emitting ------------------------------------------------------
    def emit(self, op_type: str, inputs: Sequence[str], args: Optional[dict] = None,
             outputs: Optional[Sequence[str]] = None, count: int = 1,
             planned: Optional[list] = None) -> Op:
        """Adds an IR op. Without `outputs` it gets `count` fresh names.
        `planned` gives output shapes that depend on run-time values (Op)."""
        return self.graph.add_op(op_type, inputs, list(outputs) if outputs else count,
                                 name=self.name, args=args, origin=self.where(),
                                 planned=planned)

    def emit_out(self, op_type: str, inputs: Sequence[str], args: Optional[dict] = None,
                 planned: Optional[list] = None) -> Op:
        """Adds the IR op that produces this node's outputs."""
        return self.emit(op_type, inputs, args, outputs=self.outputs, planned=planned)


Converter = Callable[[Node], None]


def registry() -> tuple[dict[str, Converter], Callable]:
    """A converter table and a decorator that fills it."""
    table: dict[str, Converter] = {}

    def register(*op_types: str):
        def add(fn: Converter) -> Converter:
            for op_type in op_types:
                table[op_type] = fn
            return fn
        return add
    return table, register
