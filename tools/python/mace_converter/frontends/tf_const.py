"""TensorFlow constants: TensorProto decoding, attribute reading, and numpy
evaluation of the few ops that compute shapes in frozen graphs."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

_NUMPY = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
          9: np.int64, 10: np.bool_, 19: np.float16}


def numpy_dtype(dtype: int) -> Any:
    if dtype not in _NUMPY:
        raise ValueError(f"TensorFlow data type {dtype} is not supported")
    return _NUMPY[dtype]


def tensor_value(proto: Any) -> np.ndarray:
    dtype = numpy_dtype(proto.dtype)
    shape = [int(d.size) for d in proto.tensor_shape.dim]
    count = int(np.prod(shape)) if shape else 1
    if proto.tensor_content:
        size = np.dtype(dtype).itemsize
        if len(proto.tensor_content) != count * size:
            raise ValueError(f"tensor_content has {len(proto.tensor_content)} bytes but shape "
                             f"{shape} of {np.dtype(dtype).name} needs {count * size}")
        return np.frombuffer(proto.tensor_content, dtype=np.dtype(dtype).newbyteorder("<")) \
            .astype(dtype).reshape(shape)
    if dtype == np.float16:
        values = np.array(proto.half_val, np.uint16).view(np.float16)
    else:
        field = {np.float32: proto.float_val, np.float64: proto.double_val,
                 np.int64: proto.int64_val, np.bool_: proto.bool_val}.get(dtype, proto.int_val)
        values = np.array(list(field), dtype=dtype)
    if values.size == 0:
        values = np.zeros(1, dtype)
    if values.size < count:   # TensorFlow repeats the last value
        values = np.concatenate([values, np.repeat(values[-1:], count - values.size)])
    return values[:count].reshape(shape)


def attr_value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "list":
        items = value.list
        for field in ("s", "i", "f", "b", "type"):
            entries = list(getattr(items, field))
            if entries:
                return [e.decode() if isinstance(e, bytes) else e for e in entries]
        if items.shape:
            return [[int(d.size) for d in shape.dim] for shape in items.shape]
        return []
    if kind == "s":
        return value.s.decode()
    if kind == "shape":
        return None if value.shape.unknown_rank else [int(d.size) for d in value.shape.dim]
    if kind == "tensor":
        return tensor_value(value.tensor)
    if kind is None:
        return None
    return getattr(value, kind)


def _strided_slice(inputs: list[np.ndarray], attrs: dict) -> np.ndarray:
    x, begin, end, strides = inputs
    if attrs.get("ellipsis_mask", 0) or attrs.get("new_axis_mask", 0):
        raise ValueError("StridedSlice with ellipsis_mask or new_axis_mask")
    index: list = []
    for axis, (b, e, s) in enumerate(zip(begin, end, strides)):
        b = None if attrs.get("begin_mask", 0) >> axis & 1 else int(b)
        e = None if attrs.get("end_mask", 0) >> axis & 1 else int(e)
        if attrs.get("shrink_axis_mask", 0) >> axis & 1:
            index.append(int(b))   # an integer index drops the axis
        else:
            index.append(slice(b, e, int(s)))
    return np.asarray(x[tuple(index)])


def _binary(fn: Callable) -> Callable:
    return lambda inputs, attrs: fn(inputs[0], inputs[1])


CONST_EVALUATORS: dict[str, Callable[[list[np.ndarray], dict], np.ndarray]] = {
    "Identity": lambda i, a: i[0],
    "Pack": lambda i, a: np.stack(i, axis=int(a.get("axis", 0))),
    "StridedSlice": _strided_slice,
    "Cast": lambda i, a: i[0].astype(numpy_dtype(a["DstT"])),
    "ExpandDims": lambda i, a: np.expand_dims(i[0], int(i[1])),
    "ConcatV2": lambda i, a: np.concatenate(i[:-1], axis=int(i[-1])),
    "Reshape": lambda i, a: i[0].reshape([int(d) for d in i[1]]),
    "Squeeze": lambda i, a: np.squeeze(i[0], axis=tuple(a.get("squeeze_dims") or []) or None),
    "Transpose": lambda i, a: np.transpose(i[0], [int(p) for p in i[1]]),
    "Prod": lambda i, a: np.prod(i[0], axis=tuple(np.atleast_1d(i[1])),
                                 keepdims=bool(a.get("keep_dims", False))),
    "Add": _binary(np.add), "AddV2": _binary(np.add), "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply), "RealDiv": _binary(np.divide),
    "FloorDiv": _binary(np.floor_divide), "Maximum": _binary(np.maximum),
    "Minimum": _binary(np.minimum), "Rsqrt": lambda i, a: 1.0 / np.sqrt(i[0]),
    "Fill": lambda i, a: np.full([int(d) for d in i[0]], i[1]),
}
