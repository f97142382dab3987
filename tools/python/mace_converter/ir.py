"""The converter's graph IR: one small representation that every frontend
produces and every transform rewrites.

Ops use MACE's op types and argument names (see docs/reference/ops.md), and tensors are
in the runtime layout (NCHW), so serialization is a straight copy. Constants
are numpy arrays held by the graph until serialization writes the blob.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from mace_converter.api import ConversionError

# The element types a tensor can have in a MACE model.
FLOAT32 = "float32"
INT32 = "int32"
# Quantized tensors (mace_converter.quantize): uint8 activations and weights,
# int8 per-channel weights.
UINT8 = "uint8"
INT8 = "int8"


@dataclass
class QuantParams:
    """real = scale * (q - zero_point); an int8 weight quantized per output
    channel has channel_scales instead of scale, and zero point 0."""
    scale: float = 0.0
    zero_point: int = 0
    minval: float = 0.0
    maxval: float = 0.0
    channel_scales: Optional[list[float]] = None


@dataclass
class Tensor:
    name: str
    shape: Optional[tuple[int, ...]] = None
    dtype: str = FLOAT32
    value: Optional[np.ndarray] = None   # set for constants only
    quant: Optional[QuantParams] = None  # set for uint8/int8 tensors

    @property
    def is_const(self) -> bool:
        return self.value is not None


@dataclass(eq=False)   # ops compare by identity
class Op:
    type: str
    name: str
    inputs: list[str]
    outputs: list[str]
    args: dict[str, Any] = field(default_factory=dict)
    # Where the op came from, for error messages: "Conv 'conv1' (node 3) in m.onnx".
    origin: str = ""
    # Output shapes that depend on values only known at run time (a shape
    # argument read from a computed tensor): the shapes the model declares,
    # which memory is planned for and the engine checks on every run.
    planned: Optional[list[tuple[int, ...]]] = None
    # Element types of the outputs where the op decides them itself (the
    # control-flow ops: whatever their subgraphs give).
    output_dtypes: Optional[list[str]] = None

    def describe(self) -> str:
        return self.origin or f"{self.type} '{self.name}'"


def as_const_array(value: np.ndarray) -> np.ndarray:
    """Normalizes a constant to one of the two element types MACE stores,
    keeping its shape (a rank-0 scalar stays rank 0)."""
    array = np.asarray(value)
    if array.dtype.kind == "f":
        return np.array(array, dtype=np.float32, order="C")
    if array.dtype.kind in "iub":
        if array.size and (array.max() > np.iinfo(np.int32).max
                           or array.min() < np.iinfo(np.int32).min):
            array = np.clip(array, np.iinfo(np.int32).min, np.iinfo(np.int32).max)
        return np.array(array, dtype=np.int32, order="C")
    raise ConversionError(f"constant of type {array.dtype} cannot be stored in a MACE model")


class Graph:
    """Ops in execution order plus the tensors they read and write."""

    def __init__(self, name: str, source: str = ""):
        self.name = name
        self.source = source              # the model file, for messages
        self.tensors: dict[str, Tensor] = {}
        self.ops: list[Op] = []
        self.inputs: list[str] = []
        self.outputs: list[str] = []
        # "NCHW", "NHWC" or "NONE" per graph input/output name.
        self.formats: dict[str, str] = {}
        self.log: list[str] = []
        # From an imported quantized model: (scale, zero point) of activations
        # and per-channel scales of int8 weights, by tensor name.
        self.imported_quant: dict[str, QuantParams] = {}
        self.imported_weight_scales: dict[str, np.ndarray] = {}
        # Shapes the source model declares for its tensors (ONNX graph
        # outputs and value_info), for outputs that depend on run-time values.
        self.declared_shapes: dict[str, tuple[int, ...]] = {}
        # Tensors whose shape is known only at run time (a Pad of computed
        # pads with no declared shape). Their IR shape holds zeros of their
        # rank; the engine prepares the ops that read them at run time, and
        # shape inference lets only ops with planned output shapes read
        # them. run_time_shapes names, for some, a 1-D tensor holding the
        # shape (so that ONNX Shape of them is computed, not folded).
        self.run_time_shaped: set[str] = set()
        self.run_time_shapes: dict[str, str] = {}
        # Graphs that control-flow ops run (If branches, Loop bodies), by the
        # index their ops' arguments hold. Only the top graph has entries.
        self.subgraphs: list["Graph"] = []
        # State tensors by name (mace_converter.states.State): kept between runs.
        self.states: dict[str, Any] = {}
        self._taken: set[str] = set()        # tensor names
        self._op_names: set[str] = set()

    # ---- names ---------------------------------------------------------
    def reserve(self, names: Sequence[str]) -> None:
        """Keeps fresh names (unique_name) off `names`, the tensors a
        frontend will define later."""
        self._taken.update(names)

    def unique_name(self, base: str) -> str:
        base = base or "t"
        if base not in self._taken and base not in self.tensors:
            self._taken.add(base)
            return base
        stem = re.sub(r"_\d+$", "", base)
        index = 1
        while f"{stem}_{index}" in self._taken or f"{stem}_{index}" in self.tensors:
            index += 1
        name = f"{stem}_{index}"
        self._taken.add(name)
        return name

    def unique_op_name(self, base: str) -> str:
        base = base or "op"
        name, index = base, 0
        while name in self._op_names:
            index += 1
            name = f"{base}_{index}"
        self._op_names.add(name)
        return name

    # ---- building ------------------------------------------------------
    def add_input(self, name: str, shape: Sequence[int], dtype: str = FLOAT32,
                  data_format: str = "NCHW") -> str:
        self.tensors[name] = Tensor(name, tuple(int(d) for d in shape), dtype)
        self._taken.add(name)
        self.inputs.append(name)
        self.formats[name] = data_format
        return name

    def add_const(self, name: str, value: np.ndarray, exact_name: bool = False) -> str:
        array = as_const_array(value)
        if not exact_name:
            name = self.unique_name(name)
        self._taken.add(name)
        dtype = INT32 if array.dtype == np.int32 else FLOAT32
        self.tensors[name] = Tensor(name, tuple(array.shape), dtype, array)
        return name

    def add_quantized_const(self, name: str, value: np.ndarray, quant: QuantParams) -> str:
        """A uint8, int8 or int32 constant stored as is, with its quantization."""
        name = self.unique_name(name)
        array = np.ascontiguousarray(value)
        dtype = {np.dtype(np.uint8): UINT8, np.dtype(np.int8): INT8,
                 np.dtype(np.int32): INT32}[array.dtype]
        self.tensors[name] = Tensor(name, tuple(array.shape), dtype, array, quant)
        return name

    def add_op(self, op_type: str, inputs: Sequence[str], outputs: Sequence[str] | int = 1,
               name: str = "", args: Optional[dict[str, Any]] = None, origin: str = "",
               infer: bool = True,
               planned: Optional[list[tuple[int, ...]]] = None) -> Op:
        """Appends an op. `outputs` is a list of names or a count of fresh
        names. Output shapes are inferred at once when `infer` is set, so a
        frontend can ask for the shape of anything it has built so far."""
        op_name = self.unique_op_name(name or op_type.lower())
        if isinstance(outputs, int):
            outs = [self.unique_name(op_name if i == 0 else f"{op_name}:{i}")
                    for i in range(outputs)]
        else:
            outs = list(outputs)
            for out in outs:
                self._taken.add(out)
        op = Op(op_type, op_name, list(inputs), outs, dict(args or {}), origin, planned)
        for out in outs:
            if out not in self.tensors or self.tensors[out].is_const:
                self.tensors[out] = Tensor(out)
        self.ops.append(op)
        if infer:
            from mace_converter.shape_inference import infer_op
            infer_op(self, op)
        return op

    # ---- queries -------------------------------------------------------
    def tensor(self, name: str) -> Tensor:
        try:
            return self.tensors[name]
        except KeyError:
            raise ConversionError(f"tensor '{name}' is used but never defined"
                                  f"{self._in_file()}") from None

    def shape(self, name: str) -> tuple[int, ...]:
        shape = self.tensor(name).shape
        if shape is None:
            raise ConversionError(f"the shape of tensor '{name}' is unknown{self._in_file()}")
        return shape

    def data_format(self, name: str) -> str:
        """The layout of a graph input or output: NONE unless it is rank 4."""
        if len(self.shape(name)) != 4:
            return "NONE"
        return self.formats.get(name, "NCHW")

    def is_const(self, name: str) -> bool:
        tensor = self.tensors.get(name)
        return tensor is not None and tensor.is_const

    def const(self, name: str) -> np.ndarray:
        tensor = self.tensor(name)
        if tensor.value is None:
            raise ConversionError(f"tensor '{name}' must be a constant{self._in_file()}")
        return tensor.value

    def producers(self) -> dict[str, Op]:
        return {out: op for op in self.ops for out in op.outputs}

    def consumers(self) -> dict[str, list[Op]]:
        users: dict[str, list[Op]] = {}
        for op in self.ops:
            for name in op.inputs:
                if name:
                    users.setdefault(name, []).append(op)
        return users

    # ---- rewriting -----------------------------------------------------
    def replace_uses(self, old: str, new: str) -> None:
        """Points every reader of `old` (ops and graph outputs) at `new`."""
        for op in self.ops:
            op.inputs = [new if name == old else name for name in op.inputs]
        self.outputs = [new if name == old else name for name in self.outputs]

    def remove_op(self, op: Op) -> None:
        self.ops = [o for o in self.ops if o is not op]
        for out in op.outputs:
            if out not in self.outputs and out not in self.inputs:
                self.tensors.pop(out, None)

    def can_bypass(self, op: Op) -> bool:
        """Whether `bypass` can drop the op and keep graph output names."""
        source, target = op.inputs[0], op.outputs[0]
        return target not in self.outputs or not (
            source in self.inputs or self.is_const(source) or source in self.outputs
            or source in self.states)

    def bypass(self, op: Op) -> None:
        """Removes a one-in, one-out op that does not change its data. When its
        output is a graph output the producer's output is renamed instead, so
        graph output names survive."""
        source, target = op.inputs[0], op.outputs[0]
        if target in self.outputs:
            self.remove_op(op)
            self.rename_tensor(source, target)
        else:
            self.remove_op(op)
            self.replace_uses(target, source)
            self.tensors.pop(target, None)

    def rename_tensor(self, old: str, new: str) -> None:
        tensor = self.tensors.pop(old)
        tensor.name = new
        self.tensors[new] = tensor
        for op in self.ops:
            op.inputs = [new if n == old else n for n in op.inputs]
            op.outputs = [new if n == old else n for n in op.outputs]
        self.outputs = [new if n == old else n for n in self.outputs]
        self.inputs = [new if n == old else n for n in self.inputs]

    def prune(self) -> int:
        """Drops ops whose outputs nobody reads and constants nobody uses.
        Returns the number of ops removed."""
        needed = set(self.outputs)
        kept: list[Op] = []
        for op in reversed(self.ops):
            if any(out in needed for out in op.outputs):
                kept.append(op)
                needed.update(name for name in op.inputs if name)
        removed = len(self.ops) - len(kept)
        self.ops = list(reversed(kept))
        live = needed | set(self.inputs)
        for op in self.ops:
            live.update(op.outputs)
        for name in list(self.tensors):
            if name not in live:
                del self.tensors[name]
        return removed

    def check_outputs(self, names: Iterable[str]) -> None:
        produced = self.producers()
        for name in names:
            if name not in produced and name not in self.inputs:
                raise ConversionError(f"output '{name}' is not produced by the model"
                                      f"{self._in_file()}")

    def _in_file(self) -> str:
        return f" in {self.source}" if self.source else ""
