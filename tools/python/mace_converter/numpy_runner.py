"""Runs a MACE model (NetDef + weights blob) with the numpy kernels.

An interpreter independent of the C++ engine: converter tests compare it with
the source framework (ONNX Runtime, or numpy references for TensorFlow and
Caffe) to check the converter without building the engine.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional

import numpy as np

from mace_converter.numpy_ops import KERNELS
from mace_converter.shape_rules_detection import DATA_DEPENDENT_OPS

_NUMPY_TYPES = {1: np.float32, 3: np.float16, 4: np.int32, 2: np.uint8, 5: np.int8}
_ITEM_SIZES = {1: 4, 3: 2, 4: 4, 2: 1, 5: 1}


def arg_dict(op: Any) -> dict:
    """OperatorDef arguments as a plain dict, in the IR's value types."""
    args: dict = {}
    for arg in op.arg:
        if arg.ints:
            args[arg.name] = [int(v) for v in arg.ints]
        elif arg.floats:
            args[arg.name] = [float(v) for v in arg.floats]
        elif arg.HasField("s"):
            args[arg.name] = arg.s.decode()
        elif arg.HasField("f"):
            args[arg.name] = float(arg.f)
        elif arg.HasField("i"):
            args[arg.name] = int(arg.i)
        else:
            args[arg.name] = []
    return args


def load_weights(net_def: Any, blob: bytes) -> dict[str, np.ndarray]:
    weights = {}
    for tensor in net_def.tensors:
        dtype = _NUMPY_TYPES[tensor.data_type]
        end = tensor.offset + tensor.data_size * _ITEM_SIZES[tensor.data_type]
        if tensor.offset < 0 or end > len(blob):
            raise ValueError(f"weight '{tensor.name}' lies outside the weights blob")
        array = np.frombuffer(blob, dtype=np.dtype(dtype).newbyteorder("<"),
                              count=tensor.data_size, offset=tensor.offset)
        array = array.reshape([int(d) for d in tensor.dims])
        if array.dtype == np.float16:
            array = array.astype(np.float32)
        weights[tensor.name] = array
    return weights


def run(net_def: Any, blob: bytes, inputs: Mapping[str, np.ndarray],
        keep_all: bool = False) -> dict[str, np.ndarray]:
    """Returns the model outputs (every tensor with keep_all)."""
    values: dict[str, Optional[np.ndarray]] = dict(load_weights(net_def, blob))
    for info in net_def.input_info:
        if info.name not in inputs:
            raise KeyError(f"missing model input '{info.name}'")
        array = np.asarray(inputs[info.name],
                           dtype=_NUMPY_TYPES[4] if info.data_type == 4 else np.float32)
        if list(array.shape) != list(info.dims):
            raise ValueError(f"input '{info.name}' has shape {list(array.shape)}, "
                             f"the model wants {list(info.dims)}")
        values[info.name] = array
    varying: set[str] = set()
    for op in net_def.op:
        kernel = KERNELS.get(op.type)
        if kernel is None:
            raise NotImplementedError(f"numpy runner has no kernel for {op.type}")
        args = arg_dict(op)
        operands = [values[name] if name else None for name in op.input]
        outputs = kernel(operands, args, len(op.output))
        # After an op whose output shape depends on the data, declared
        # shapes are the largest ones (the engine's memory plan).
        bounded = op.type in DATA_DEPENDENT_OPS or any(name in varying for name in op.input)
        for index, (name, array) in enumerate(zip(op.output, outputs)):
            array = np.asarray(array)
            if array.dtype.kind == "f":
                array = array.astype(np.float32)
            if bounded:
                varying.add(name)
            if index < len(op.output_shape) and op.output_shape[index].dims:
                declared = [int(d) for d in op.output_shape[index].dims]
                fits = len(declared) == array.ndim and all(
                    a <= d for a, d in zip(array.shape, declared))
                if (list(array.shape) != declared and not bounded) or not fits:
                    raise ValueError(f"{op.type} '{op.name}' made '{name}' with shape "
                                     f"{list(array.shape)}, the model declares {declared}")
            values[name] = array
    if keep_all:
        return {k: v for k, v in values.items() if v is not None}
    return {info.name: values[info.name] for info in net_def.output_info}


def run_files(pb_path: Path, data_path: Path, inputs: Mapping[str, np.ndarray]
              ) -> dict[str, np.ndarray]:
    from mace_tools import proto
    net_def = proto.load().NetDef()
    net_def.ParseFromString(Path(pb_path).read_bytes())
    return run(net_def, Path(data_path).read_bytes(), inputs)


def run_caffe(prototxt: Path, caffemodel: Optional[Path], inputs: Mapping[str, np.ndarray],
              outputs: list[str]) -> dict[str, np.ndarray]:
    """The Caffe model itself, run by the numpy Caffe layers (for validation)."""
    from mace_converter.caffe_reference import run_caffe as run_reference
    return run_reference(prototxt, caffemodel, inputs, outputs)


def run_tensorflow(model: Path, inputs: Mapping[str, np.ndarray],
                   outputs: list[str]) -> dict[str, np.ndarray]:
    """The frozen TensorFlow graph itself, run by numpy NHWC ops (for
    validation without TensorFlow)."""
    from mace_converter.tf_reference import run_tensorflow as run_reference
    return run_reference(model, inputs, outputs)
