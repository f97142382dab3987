"""Builds MACE models (graph .pb plus weights .data) from numpy arrays."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from mace_tools import proto

mace_pb2 = proto.load()

WEIGHT_ALIGNMENT = 64  # bytes; lets CPU kernels use weights in place


class NetBuilder:
    """Accumulates inputs, weights and ops; writes the two model files."""

    def __init__(self, name: str):
        self.net = mace_pb2.NetDef()
        self.net.name = name
        self.net.data_type = mace_pb2.DT_FLOAT
        self._blob = bytearray()
        self._counter = 0

    def unique(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}_{self._counter}"

    def add_input(self, name: str, shape: Sequence[int]) -> str:
        info = self.net.input_info.add()
        info.name = name
        info.dims.extend(shape)
        info.data_type = mace_pb2.DT_FLOAT
        return name

    def add_output(self, name: str, shape: Sequence[int]) -> None:
        info = self.net.output_info.add()
        info.name = name
        info.dims.extend(shape)

    def add_weight(self, name: str, array: np.ndarray) -> str:
        if array.dtype == np.int32:
            dtype, raw = mace_pb2.DT_INT32, array.astype("<i4").tobytes()
        else:
            dtype, raw = mace_pb2.DT_FLOAT, array.astype("<f4").tobytes()
        padding = (-len(self._blob)) % WEIGHT_ALIGNMENT
        self._blob.extend(b"\0" * padding)
        tensor = self.net.tensors.add()
        tensor.name = name
        tensor.dims.extend(array.shape)
        tensor.data_type = dtype
        tensor.offset = len(self._blob)
        tensor.data_size = int(array.size)
        self._blob.extend(raw)
        return name

    def add_op(self, op_type: str, inputs: Iterable[str], outputs: Iterable[str] | str,
               name: str | None = None, **args) -> str | list[str]:
        op = self.net.op.add()
        op.type = op_type
        op.name = name or self.unique(op_type.lower())
        op.input.extend(inputs)
        outs = [outputs] if isinstance(outputs, str) else list(outputs)
        op.output.extend(outs)
        for key, value in args.items():
            arg = op.arg.add()
            arg.name = key
            if isinstance(value, str):
                arg.s = value.encode()
            elif isinstance(value, float):
                arg.f = value
            elif isinstance(value, (bool, int, np.integer)):
                arg.i = int(value)
            elif all(isinstance(v, (int, np.integer)) for v in value):
                arg.ints.extend(int(v) for v in value)
            else:
                arg.floats.extend(float(v) for v in value)
        return outputs

    def save(self, pb_path: Path, data_path: Path) -> None:
        pb_path.parent.mkdir(parents=True, exist_ok=True)
        pb_path.write_bytes(self.net.SerializeToString())
        data_path.write_bytes(bytes(self._blob))
