"""The converter's front half: frontend -> IR -> transforms -> MACE model."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from mace_converter import dynamic_shapes, files, states
from mace_converter.api import (IO_DATA_TYPES, MAX_DIM, MAX_INPUT_BYTES, ConversionError,
                                ConvertedModel, ConvertOptions, TensorSpec)
from mace_converter.ir import Graph
from mace_converter.serialize import serialize
from mace_converter.transforms import run_pipeline
from mace_converter.transforms.precision import weight_dtype


def _frontend(platform: str):
    if platform == "onnx":
        from mace_converter.frontends import onnx_frontend
        return onnx_frontend.load
    if platform == "tensorflow":
        from mace_converter.frontends import tensorflow_frontend
        return tensorflow_frontend.load
    if platform == "caffe":
        from mace_converter.frontends import caffe_frontend
        return caffe_frontend.load
    if platform == "tflite":
        from mace_converter.frontends import tflite_frontend, tflite_ops  # noqa: F401
        return tflite_frontend.load
    raise ConversionError(f"platform must be onnx, tensorflow, caffe or tflite, got "
                          f"'{platform}'")


def _check_options(options: ConvertOptions) -> None:
    try:
        files.regular_file(Path(options.model_file))
    except files.FileRefused as error:
        raise ConversionError(f"model file {options.model_file}: {error}") from None
    if options.platform == "caffe":
        if options.weight_file is None:
            raise ConversionError("a Caffe model needs its weight file (.caffemodel)")
        try:
            files.regular_file(Path(options.weight_file))
        except files.FileRefused as error:
            raise ConversionError(f"Caffe weight file {options.weight_file}: {error}") from None
    for spec in options.inputs:
        if any(int(d) < 0 for d in spec.shape):
            raise ConversionError(f"input '{spec.name}' has shape {list(spec.shape)}; a "
                                  "dimension cannot be negative")
        if any(int(d) > MAX_DIM for d in spec.shape) or \
                math.prod(int(d) for d in spec.shape) * 4 > MAX_INPUT_BYTES:
            raise ConversionError(f"input '{spec.name}' has shape {list(spec.shape)}; the "
                                  f"engine takes dimensions up to {MAX_DIM} and inputs up to "
                                  f"{MAX_INPUT_BYTES} bytes")
        if spec.data_format not in ("NCHW", "NHWC", "NONE"):
            raise ConversionError(f"input '{spec.name}' has data_format '{spec.data_format}'"
                                  "; use NCHW, NHWC or NONE")
        _check_max_shape(options, spec)
    for spec in list(options.inputs) + list(options.outputs):
        if spec.data_type is not None and spec.data_type not in IO_DATA_TYPES:
            raise ConversionError(f"'{spec.name}' has data type '{spec.data_type}'; use one of "
                                  f"{', '.join(IO_DATA_TYPES)}")


def _check_max_shape(options: ConvertOptions, spec: TensorSpec) -> None:
    """An input's dynamic dimensions (TensorSpec.max_shape) must contain its
    planned shape, and stay where the engine's arithmetic is safe."""
    if spec.max_shape is None:
        return
    shape, top = [int(d) for d in spec.shape], [int(d) for d in spec.max_shape]
    where = f"input '{spec.name}' (shape {shape}, max shape {top})"
    if len(top) != len(shape):
        raise ConversionError(f"{where}: the max shape needs one dimension per dimension")
    for d, (planned, largest) in enumerate(zip(shape, top)):
        if largest < planned or largest >= 2**31:
            raise ConversionError(f"{where}: dimension {d} may not be larger than its maximum, "
                                  "and a maximum must be below 2^31")
        if largest > planned and planned < 1:
            raise ConversionError(f"{where}: dynamic dimension {d} needs a planned size of at "
                                  "least 1")
    if top != shape and options.platform != "onnx":
        raise ConversionError(f"{where}: dynamic input dimensions are for ONNX models (their "
                              "symbolic dimensions); this model is "
                              f"{options.platform}")


def _same_tensor(spec: TensorSpec, shape: list[int], data_format: str) -> bool:
    """Whether a deployment-file shape describes the model's tensor, allowing
    an image given in the other layout (NHWC for NCHW, or the reverse)."""
    declared = [int(d) for d in spec.shape]
    if declared == shape:
        return True
    if len(shape) != 4 or spec.data_format == data_format:
        return False
    perm = (0, 2, 3, 1) if spec.data_format == "NHWC" else (0, 3, 1, 2)
    return declared == [shape[p] for p in perm]


def _specs(graph: Graph, names: list[str], declared: list[TensorSpec], kind: str
           ) -> list[TensorSpec]:
    by_name = {spec.name: spec for spec in declared}
    specs = []
    for name in names:
        shape = list(graph.shape(name))
        spec = by_name.get(name)
        if spec is not None and spec.shape and not _same_tensor(spec, shape,
                                                                graph.data_format(name)):
            raise ConversionError(f"{kind} '{name}' has shape {shape} in the converted model "
                                  f"but {list(spec.shape)} in the deployment file")
        max_shape = None
        if spec is not None and spec.max_shape is not None and list(spec.max_shape) != shape:
            if [int(d) for d in spec.shape] != shape:
                raise ConversionError(f"{kind} '{name}' has dynamic dimensions but the "
                                      f"converter changed its layout ({list(spec.shape)} to "
                                      f"{shape}); keep a dynamic input in the model's layout")
            max_shape = [int(d) for d in spec.max_shape]
        specs.append(TensorSpec(name, shape, spec.value_range if spec else (-1.0, 1.0),
                                graph.data_format(name), max_shape,
                                spec.data_type if spec else None))
    return specs


# ONNX element types an input or output keeps when the deployment file does
# not give its type: 6 int32, 7 int64, 9 bool.
_ONNX_APP_TYPES = {6: "int32", 7: "int64", 9: "bool"}
# ONNX uint32 and uint64 (12, 13) inputs and outputs the engine computes in
# int32 (bitwise ops) are exchanged as int64, which holds every value of
# either type that int32 holds; the engine refuses a larger one.
_ONNX_WIDE_UNSIGNED = {12: "int64", 13: "int64"}
_OWN_TYPES = {"DT_FLOAT": "float32", "DT_INT32": "int32", "DT_UINT8": "uint8"}


def _set_app_types(graph: Graph, net_def: Any, inputs: list[TensorSpec],
                   outputs: list[TensorSpec]) -> None:
    """Records in each InputOutputInfo the type the app exchanges
    (app_data_type) where it is not the engine's own, and fills the specs'
    data_type with the type in effect."""
    enums = net_def.DESCRIPTOR.file.enum_types_by_name
    io_types, data_types = enums["IODataType"], enums["DataType"]
    onnx_types = {**getattr(graph, "onnx_value_types", {}),
                  **getattr(graph, "onnx_input_types", {})}
    for infos, specs, kind in ((net_def.input_info, inputs, "input"),
                               (net_def.output_info, outputs, "output")):
        for info, spec in zip(infos, specs):
            own = _OWN_TYPES.get(data_types.values_by_number[info.data_type].name)
            onnx_type = onnx_types.get(info.name)
            wanted = spec.data_type or _ONNX_APP_TYPES.get(onnx_type) or (
                _ONNX_WIDE_UNSIGNED.get(onnx_type) if own == "int32" else None)
            if wanted is None or wanted == own:
                spec.data_type = own
                continue
            if wanted == "float32" or own is None:
                raise ConversionError(f"{kind} '{info.name}': {kind}_data_types says {wanted} "
                                      f"but the converted model computes it as {own}; give "
                                      f"{own} or an integer type")
            info.app_data_type = io_types.values_by_name[f"IO_{wanted.upper()}"].number
            spec.data_type = wanted


def _shape_of(graph: Graph):
    """Tensor name -> its shape in `graph`, or None where it has none."""
    def shape(name: str):
        try:
            return [int(d) for d in graph.shape(name)]
        except (ConversionError, KeyError):
            return None
    return shape


def _follow_dynamic_inputs(options: ConvertOptions, graph: Graph, net_def, weights: bytes,
                           dtype: str, log: list[str]) -> None:
    """For inputs with dynamic dimensions: converts the model again at the
    largest input shapes and makes the Reshape targets that differ follow
    the input at run time (dynamic_shapes.py)."""
    largest_options = dynamic_shapes.largest_options(options)
    try:
        largest_graph = _frontend(options.platform)(largest_options)
        run_pipeline(largest_graph, largest_options)
        if largest_options.quantize is not None:
            from mace_converter.quantize.graph_pass import quantize_graph
            quantize_graph(largest_graph, largest_options.quantize)
        largest_net, largest_weights = serialize(largest_graph, dtype)
    except ConversionError as error:
        raise ConversionError(f"{options.model_name}: at the largest input shapes "
                              f"({[spec.shape for spec in largest_options.inputs]}): "
                              f"{error}") from error
    try:
        changed = dynamic_shapes.follow_dynamic_inputs(
            (net_def, weights, _shape_of(graph)),
            (largest_net, largest_weights, _shape_of(largest_graph)))
    except ConversionError as error:
        raise ConversionError(f"{options.model_name}: with dynamic input dimensions: "
                              f"{error}") from error
    log.append(f"dynamic input dimensions: {changed} Reshape target(s) follow the input at "
               "run time")


def convert(options: ConvertOptions) -> ConvertedModel:
    """Converts one model. Raises ConversionError for anything the converter
    cannot handle, with a message naming the op, node and file."""
    _check_options(options)
    log: list[str] = []
    dtype = weight_dtype(options, log)
    graph = _frontend(options.platform)(options)
    states.bind_io_pairs(graph, options.states)
    if graph.states and options.quantize is not None:
        raise ConversionError("a model with state tensors (resource variables or deployment "
                              "file state pairs) converts without quantize: 1 only")
    kept_values = states.protect(graph)
    run_pipeline(graph, options)
    states.finish(graph, kept_values)
    if options.quantize is not None:
        from mace_converter.quantize.graph_pass import quantize_graph
        options.quantize.fixed.update(graph.imported_quant)
        options.quantize.weight_scales.update(graph.imported_weight_scales)
        quantize_graph(graph, options.quantize)
    elif graph.imported_quant or getattr(graph, "fake_quant", None):
        log.append(f"the model is quantized (QDQ); converted to float because the deployment "
                   f"file does not set quantize: 1: its "
                   f"{len(getattr(graph, 'fake_quant', {}))} QuantizeLinear -> "
                   "DequantizeLinear pair(s) round and saturate in float, as the model does")
    net_def, weights = serialize(graph, dtype)
    if dynamic_shapes.has_dynamic_inputs(options):
        _follow_dynamic_inputs(options, graph, net_def, weights, dtype, log)
    inputs = _specs(graph, graph.inputs, options.inputs, "input")
    for info, spec in zip(net_def.input_info, inputs):
        if spec.max_shape is not None:
            info.max_dims.extend(spec.max_shape)
    if options.runtime == "dsp":
        from mace_converter import dsp_ops
        log.extend(dsp_ops.report(net_def, options.model_name))
    outputs = _specs(graph, graph.outputs, options.outputs, "output")
    _set_app_types(graph, net_def, inputs, outputs)
    ops = len(net_def.op)
    summary = (f"{ops} ops, {len(net_def.tensors)} weights ({len(weights)} bytes, "
               f"CRC32C 0x{net_def.weights_crc32c:08X})")
    return ConvertedModel(net_def, weights, inputs, outputs,
                          graph.log + log + [f"{options.model_name}: {summary}"])
