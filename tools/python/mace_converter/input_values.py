"""The element type each model input is fed in, and the random values `run`,
`run --validate` and `benchmark` draw for it: floats uniform in the
deployment file's input_ranges, and for int32, int64 and bool inputs whole
numbers in it (token ids in [0, vocab) for `input_ranges: 0,<vocab>`).

Without input_ranges an integer input takes the engine tools' default, as
mace_run does (mace/tools/random_inputs.h): bool [0, 2); an int32 or int64
input whose name contains "mask" all ones; other integers [0, 2), indices
that any table of two rows or more takes.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from mace_converter.api import TensorSpec
from mace_converter.progress import UserError

INTEGER_TYPES = ("int32", "int64", "bool")
_IO_TYPES = {"IO_FLOAT32": "float32", "IO_INT32": "int32", "IO_UINT8": "uint8",
             "IO_INT64": "int64", "IO_BOOL": "bool"}
_OWN_TYPES = {"DT_INT32": "int32", "DT_UINT8": "uint8"}


def app_types(graph: Path) -> dict[str, str]:
    """The type the app feeds each input of the converted model `graph`:
    its declared app type (InputOutputInfo.app_data_type), else the
    engine's own; keyed by the engine's input names."""
    from mace_tools import proto
    pb = proto.load()
    net = pb.NetDef()
    try:
        net.ParseFromString(graph.read_bytes())
    except (OSError, ValueError) as error:
        raise UserError(f"cannot read the converted model {graph}: {error}") from None
    io_names = pb.IODataType.Name
    own_names = pb.DataType.Name
    return {info.name: _IO_TYPES.get(io_names(info.app_data_type))
            or _OWN_TYPES.get(own_names(info.data_type), "float32")
            for info in net.input_info}


def integer_range(spec: TensorSpec, dtype: str, given: bool) -> tuple[int, int]:
    """[low, high) of the whole numbers drawn for an integer input."""
    if not given:
        if dtype == "bool":
            return 0, 2
        return (1, 2) if "mask" in spec.name.lower() else (0, 2)
    low, high = math.ceil(spec.value_range[0]), math.ceil(spec.value_range[1])
    if dtype == "bool":
        low, high = max(low, 0), min(high, 2)
    if low >= high:
        raise UserError(f"input {spec.name} is {dtype} but its input_ranges "
                        f"[{spec.value_range[0]:g}, {spec.value_range[1]:g}) hold no whole "
                        "number; give a range such as 0,30522 for token ids")
    return low, high


def draw(rng: np.random.Generator, spec: TensorSpec, dtype: str,
         given: bool) -> tuple[np.ndarray, str]:
    """Random values for input `spec` of type `dtype`, and their description."""
    if dtype not in INTEGER_TYPES:
        low, high = spec.value_range
        return (rng.uniform(low, high, size=spec.shape).astype(np.float32),
                f"{spec.name} in [{low:g}, {high:g})")
    low, high = integer_range(spec, dtype, given)
    values = rng.integers(low, high, size=spec.shape, dtype=np.int64).astype(dtype)
    what = f"all {low}" if high == low + 1 else f"integers in [{low}, {high})"
    return values, f"{spec.name} {dtype} {what}"


def as_type(array: np.ndarray, dtype: str, file_name: str) -> np.ndarray:
    """A validation file's values as integer type `dtype`, refusing values
    that are not whole numbers."""
    if array.dtype == np.dtype(dtype):
        return array
    if array.dtype.kind == "f" and not np.array_equal(array, np.trunc(array)):
        raise UserError(f"validation input {file_name} holds values that are not whole "
                        f"numbers, for an input of type {dtype}")
    return array.astype(dtype)
