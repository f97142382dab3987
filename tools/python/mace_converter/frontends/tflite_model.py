"""Reads a .tflite flatbuffer through the generated schema of the `tflite`
package (pinned in tools/requirements.txt) into plain Python records: one
subgraph's tensors, constant buffers and operators. Every offset the
file gives is checked against the file, so a truncated or corrupt model is a
ConversionError naming what is wrong, never an IndexError or struct.error.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np

from mace_converter.api import ConversionError

# TensorType -> numpy type (the types a MACE model can hold).
DTYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 6: np.bool_,
          7: np.int16, 9: np.int8, 10: np.float64}
TYPE_NAMES = {0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 5: "string",
              6: "bool", 7: "int16", 8: "complex64", 9: "int8", 10: "float64",
              11: "complex128", 12: "uint64", 13: "resource", 14: "variant", 15: "uint32",
              16: "uint16", 17: "int4"}


def canonical_name(name: str) -> str:
    """'x:0' and 'x' name the same tensor."""
    return name[:-2] if name.endswith(":0") else name


def _tflite():
    try:
        import tflite
        return tflite
    except ImportError as error:  # pragma: no cover - tflite is in requirements
        raise ConversionError("the tflite package is needed to convert TFLite models "
                              "(pip install -r tools/requirements.txt)") from error


@dataclass
class Quantization:
    scale: np.ndarray
    zero_point: np.ndarray
    axis: int


@dataclass
class Tensor:
    index: int
    name: str
    shape: tuple[int, ...]
    dtype: int
    buffer: int
    quant: Optional[Quantization] = None
    sparsity: Any = None
    variable: bool = False

    @property
    def type_name(self) -> str:
        return TYPE_NAMES.get(self.dtype, f"type {self.dtype}")


@dataclass
class Operator:
    index: int
    op_type: str
    inputs: list[int]
    outputs: list[int]
    options: Any = None
    custom_options: bytes = b""


@dataclass
class TfliteModel:
    path: Path
    tensors: list[Tensor]
    operators: list[Operator]
    inputs: list[int]
    outputs: list[int]
    data: dict[int, bytes] = field(default_factory=dict)   # buffer index -> bytes
    subgraph: int = 0       # which subgraph of the file these records are
    subgraph_count: int = 1

    def const(self, tensor: Tensor) -> Optional[np.ndarray]:
        """The tensor's constant value, or None when it is computed."""
        raw = self.data.get(tensor.buffer)
        if not raw:
            return None
        if tensor.dtype not in DTYPES:
            raise ConversionError(f"{self.path.name}: constant tensor {tensor.index} "
                                  f"'{tensor.name}' has type {tensor.type_name}, which MACE "
                                  "cannot hold")
        dtype = np.dtype(DTYPES[tensor.dtype]).newbyteorder("<")
        count = int(np.prod(tensor.shape)) if tensor.shape else 1
        if tensor.sparsity is not None:
            return np.frombuffer(raw, dtype=dtype, count=len(raw) // dtype.itemsize).copy()
        if count * dtype.itemsize != len(raw):
            raise ConversionError(f"{self.path.name}: tensor {tensor.index} '{tensor.name}' "
                                  f"has shape {list(tensor.shape)} ({tensor.type_name}) but its "
                                  f"buffer {tensor.buffer} holds {len(raw)} bytes")
        return np.frombuffer(raw, dtype=dtype, count=count).reshape(tensor.shape).astype(
            dtype.newbyteorder("="))


def _names(enum_class: Any) -> dict[int, str]:
    return {value: name for name, value in vars(enum_class).items()
            if not name.startswith("_") and isinstance(value, int)}


def _options(tflite: Any, op: Any) -> Any:
    kind = op.BuiltinOptionsType()
    table = op.BuiltinOptions()
    if not kind or table is None:
        return None
    name = _names(tflite.BuiltinOptions).get(kind)
    cls = getattr(tflite, name, None) if name else None
    if cls is None:
        return None
    options = cls()
    options.Init(table.Bytes, table.Pos)
    return options


def _quantization(tensor: Any) -> Optional[Quantization]:
    q = tensor.Quantization()
    if q is None or q.ScaleLength() == 0:
        return None
    scale = np.asarray(q.ScaleAsNumpy(), dtype=np.float32).reshape(-1)
    zero = np.asarray(q.ZeroPointAsNumpy(), dtype=np.int64).reshape(-1) \
        if q.ZeroPointLength() else np.zeros(scale.shape, np.int64)
    return Quantization(scale, zero, int(q.QuantizedDimension()))


def _tensor(index: int, tensor: Any, buffers: int) -> Tensor:
    raw_name = tensor.Name() or b""
    name = raw_name.decode("utf-8")
    shape = tuple(int(d) for d in tensor.ShapeAsNumpy()) if tensor.ShapeLength() else ()
    if any(d < 0 for d in shape):
        raise ConversionError(f"tensor {index} '{name}' has shape {list(shape)}; this "
                              "converter needs static shapes (give the input shapes when "
                              "exporting)")
    buffer = int(tensor.Buffer())
    if not 0 <= buffer < max(buffers, 1):
        raise ConversionError(f"tensor {index} '{name}' names buffer {buffer} but the file "
                              f"has {buffers} buffers")
    return Tensor(index, name, shape, int(tensor.Type()), buffer, _quantization(tensor),
                  tensor.Sparsity(), bool(tensor.IsVariable()))


def _buffers(model: Any, raw: bytes, used: set[int]) -> dict[int, bytes]:
    data = {}
    for index in sorted(used):
        buffer = model.Buffers(index)
        if buffer is None:
            continue
        offset, size = int(buffer.Offset()), int(buffer.Size())
        if offset > 1:
            if offset + size > len(raw):
                raise ConversionError(f"buffer {index} lies at bytes {offset}..{offset + size} "
                                      f"past the end of the file ({len(raw)} bytes)")
            data[index] = raw[offset:offset + size]
        elif buffer.DataLength():
            data[index] = buffer.DataAsNumpy().tobytes()
    return data


def _operator(tflite: Any, model: Any, index: int, op: Any, tensors: int,
              custom_names: dict[int, str]) -> Operator:
    codes = model.OperatorCodesLength()
    code_index = int(op.OpcodeIndex())
    if not 0 <= code_index < codes:
        raise ConversionError(f"operator {index} uses opcode {code_index} but the file has "
                              f"{codes} operator codes")
    code = model.OperatorCodes(code_index)
    builtin = max(int(code.BuiltinCode()), int(code.DeprecatedBuiltinCode()))
    if builtin == tflite.BuiltinOperator.CUSTOM:
        op_type = (code.CustomCode() or b"").decode("utf-8", "replace")
        custom_names[index] = op_type
    else:
        op_type = tflite.BUILTIN_OPCODE2NAME.get(builtin, f"builtin operator {builtin}")
    inputs = [int(i) for i in op.InputsAsNumpy()] if op.InputsLength() else []
    outputs = [int(i) for i in op.OutputsAsNumpy()] if op.OutputsLength() else []
    for i in inputs + outputs:
        if not -1 <= i < tensors:
            raise ConversionError(f"operator {index} ({op_type}) names tensor {i} but the "
                                  f"subgraph has {tensors} tensors")
    custom = op.CustomOptionsAsNumpy().tobytes() if op.CustomOptionsLength() else b""
    return Operator(index, op_type, inputs, outputs, _options(tflite, op), custom)


def read(path: Path, subgraph: int = 0) -> TfliteModel:
    """Parses subgraph `subgraph` of `path` (the first: the model's main
    graph); raises ConversionError for a file that is not a well-formed
    TFLite model."""
    raw = Path(path).read_bytes()
    if len(raw) < 8 or raw[4:8] != b"TFL3":
        raise ConversionError(f"{path} is not a TFLite model (no TFL3 file identifier)")
    tflite = _tflite()
    try:
        model = tflite.Model.GetRootAs(raw, 0)
        count = model.SubgraphsLength()
        if not 0 <= subgraph < count:
            raise ConversionError(f"{path} has no subgraph {subgraph} ({count} subgraphs)")
        graph = model.Subgraphs(subgraph)
        buffers = model.BuffersLength()
        tensors = [_tensor(i, graph.Tensors(i), buffers) for i in range(graph.TensorsLength())]
        custom: dict[int, str] = {}
        operators = [_operator(tflite, model, i, graph.Operators(i), len(tensors), custom)
                     for i in range(graph.OperatorsLength())]
        inputs = [int(i) for i in graph.InputsAsNumpy()] if graph.InputsLength() else []
        outputs = [int(i) for i in graph.OutputsAsNumpy()] if graph.OutputsLength() else []
        for i in inputs + outputs:
            if not 0 <= i < len(tensors):
                raise ConversionError(f"the subgraph's inputs or outputs name tensor {i} but "
                                      f"it has {len(tensors)} tensors")
        data = _buffers(model, raw, {t.buffer for t in tensors})
    except ConversionError as error:
        raise ConversionError(f"{path.name}: {error}") from None
    except (IndexError, ValueError, TypeError, AttributeError, UnicodeDecodeError,
            OverflowError, MemoryError) as error:
        raise ConversionError(f"{path} is a corrupt TFLite model: {type(error).__name__}: "
                              f"{error}") from None
    except Exception as error:  # struct.error and flatbuffers' own errors
        raise ConversionError(f"{path} is a corrupt TFLite model: {type(error).__name__}: "
                              f"{error}") from None
    return TfliteModel(Path(path), tensors, operators, inputs, outputs, data, subgraph, count)
