"""Writes the IR as MACE's model format: a NetDef whose ConstTensors point
into one weights blob, each tensor starting on a 64-byte boundary so the CPU
runtime can use the weights in place, and which keeps the blob's CRC-32C."""
from __future__ import annotations

from typing import Any

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.crc32c import crc32c
from mace_converter.ir import FLOAT32, INT8, INT32, UINT8, Graph, QuantParams
from mace_tools import proto

WEIGHT_ALIGNMENT = 64
# mace::DataFormat values of InputOutputInfo.data_format.
_FORMATS = {"NHWC": 1, "NCHW": 2, "NONE": 0}


def mace_pb2() -> Any:
    return proto.load()


_INT64 = (-2**63, 2**63 - 1)


def _int64s(values, what: str) -> list[int]:
    """`values` as ints, or a ConversionError naming `what` when one does not
    fit the model format's int64 fields (shapes and arguments computed from
    a corrupt model can)."""
    result = [int(v) for v in values]
    for value in result:
        if not _INT64[0] <= value <= _INT64[1]:
            raise ConversionError(f"{what} has the value {value}, which does not fit in int64")
    return result


def _set_arg(arg: Any, value: Any, what: str = "an argument") -> None:
    if isinstance(value, str):
        arg.s = value.encode()
    elif isinstance(value, (bool, int, np.integer)):
        arg.i = _int64s([value], what)[0]
    elif isinstance(value, (float, np.floating)):
        arg.f = float(value)
    elif all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        arg.ints.extend(_int64s(value, what))
    else:
        arg.floats.extend(float(v) for v in value)


def _dtype(pb: Any, dtype: str) -> int:
    return {FLOAT32: pb.DT_FLOAT, INT32: pb.DT_INT32, UINT8: pb.DT_UINT8,
            INT8: pb.DT_INT8}[dtype]


def _set_quant(target: Any, quant: QuantParams) -> None:
    """ConstTensor or InputOutputInfo fields, or a QuantizeActivationInfo."""
    target.scale = float(quant.scale)
    target.zero_point = int(quant.zero_point)
    if hasattr(target, "minval"):
        target.minval, target.maxval = float(quant.minval), float(quant.maxval)
    if quant.channel_scales is not None:
        target.channel_scales.extend(float(s) for s in quant.channel_scales)


def serialize(graph: Graph, weight_dtype: str = "float32") -> tuple[Any, bytes]:
    """Returns (NetDef, weights blob). `weight_dtype` "float16" stores float
    constants as DT_HALF. The graphs that control-flow ops run go to
    NetDef.subgraphs, their weights into the same blob."""
    pb = mace_pb2()
    net = pb.NetDef()
    blob = bytearray()
    _write_net(pb, graph, net, blob, weight_dtype)
    _write_states(pb, graph, net, blob)
    for subgraph in graph.subgraphs:
        if subgraph.subgraphs is not graph.subgraphs and subgraph.subgraphs:
            raise ConversionError(f"subgraph '{subgraph.name}' keeps a subgraph list of its own")
        _write_net(pb, subgraph, net.subgraphs.add(), blob, weight_dtype)
    # The engine recomputes this at init and refuses a blob that differs.
    net.weights_crc32c = crc32c(blob)
    return net, bytes(blob)


def _write_states(pb: Any, graph: Graph, net: Any, blob: bytearray) -> None:
    """NetDef.state_tensors: an initial value of zeros takes no blob bytes."""
    for state in graph.states.values():
        tensor = net.state_tensors.add()
        tensor.name = state.name
        tensor.dims.extend(int(d) for d in state.initial.shape)
        tensor.data_type = _dtype(pb, graph.tensor(state.name).dtype)
        if state.zeros:
            continue
        blob.extend(b"\0" * ((-len(blob)) % WEIGHT_ALIGNMENT))
        tensor.offset = len(blob)
        tensor.data_size = int(state.initial.size)
        blob.extend(state.initial.astype("<f4" if state.initial.dtype.kind == "f"
                                         else "<i4").tobytes())


def _write_net(pb: Any, graph: Graph, net: Any, blob: bytearray, weight_dtype: str) -> None:
    """Fills `net` from `graph`, appending its constants to `blob`."""
    net.name = graph.name
    net.data_type = pb.DT_HALF if weight_dtype == "float16" else pb.DT_FLOAT
    written: set[str] = set()
    for op in graph.ops:
        for name in op.inputs:
            if not name or name in written or not graph.is_const(name):
                continue
            written.add(name)
            value = graph.const(name)
            quant = graph.tensor(name).quant
            if value.dtype == np.uint8:
                dtype, raw = pb.DT_UINT8, value.tobytes()
            elif value.dtype == np.int8:
                dtype, raw = pb.DT_INT8, value.tobytes()
            elif value.dtype == np.int32:
                dtype, raw = pb.DT_INT32, value.astype("<i4").tobytes()
            elif weight_dtype == "float16":
                dtype, raw = pb.DT_HALF, value.astype("<f2").tobytes()
            else:
                dtype, raw = pb.DT_FLOAT, value.astype("<f4").tobytes()
            blob.extend(b"\0" * ((-len(blob)) % WEIGHT_ALIGNMENT))
            tensor = net.tensors.add()
            tensor.name = name
            tensor.dims.extend(int(d) for d in value.shape)
            tensor.data_type = dtype
            tensor.offset = len(blob)
            tensor.data_size = int(value.size)
            if quant is not None:
                _set_quant(tensor, quant)
                tensor.quantized = True
            blob.extend(raw)
    for op in graph.ops:
        op_def = net.op.add()
        op_def.type = op.type
        op_def.name = op.name
        op_def.input.extend(op.inputs)
        op_def.output.extend(op.outputs)
        for key in sorted(op.args):
            arg = op_def.arg.add()
            arg.name = key
            _set_arg(arg, op.args[key], f"argument '{key}' of op '{op.name}'")
        # No output shapes for an op whose outputs get theirs at run time.
        run_time = any(out in graph.run_time_shaped for out in op.outputs)
        for out in op.outputs:
            tensor = graph.tensor(out)
            if not run_time:
                op_def.output_shape.add().dims.extend(
                    _int64s(tensor.shape or (), f"the shape of '{out}' (op '{op.name}')"))
            op_def.output_type.append(_dtype(pb, tensor.dtype))
        quantized = [graph.tensor(out).quant for out in op.outputs]
        if any(q is not None for q in quantized):
            for quant in quantized:
                _set_quant(op_def.quantize_info.add(), quant or QuantParams())
    for name in graph.inputs:
        info = net.input_info.add()
        info.name = name
        info.dims.extend(int(d) for d in graph.shape(name))
        _set_info_type(pb, info, graph, name)
        info.data_format = _FORMATS[graph.data_format(name)]
    for name in graph.outputs:
        info = net.output_info.add()
        info.name = name
        if name not in graph.run_time_shaped:
            info.dims.extend(int(d) for d in graph.shape(name))
        _set_info_type(pb, info, graph, name)
        info.data_format = _FORMATS[graph.data_format(name)]


def _set_info_type(pb: Any, info: Any, graph: Graph, name: str) -> None:
    tensor = graph.tensor(name)
    info.data_type = _dtype(pb, tensor.dtype)
    if tensor.quant is not None:
        info.scale = float(tensor.quant.scale)
        info.zero_point = int(tensor.quant.zero_point)
