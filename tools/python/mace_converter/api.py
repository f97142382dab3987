"""The contract between the converter's front half (frontends, IR, transforms,
serialization) and its back half (deployment files, build, run, validation,
packaging). Both sides import only these names from each other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional


@dataclass
class TensorSpec:
    """A graph input or output as the deployment file names it."""
    name: str
    shape: list[int]
    # Inputs only: the (low, high) range random validation data is drawn from.
    value_range: tuple[float, float] = (-1.0, 1.0)
    # "NCHW", "NHWC" or "NONE" (not an image). The converter may transpose
    # image inputs to the runtime's layout and records what it did.
    data_format: str = "NCHW"
    # Inputs only: the largest shape the engine takes at Run (deployment key
    # input_max_shapes). A dimension larger here than in `shape` is dynamic,
    # from 1 to this value; `shape` stays the one planned at Init and used
    # for conversion. None: every dimension is fixed.
    max_shape: Optional[list[int]] = None
    # The element type the app feeds (inputs) or reads (outputs): one of
    # IO_DATA_TYPES (deployment keys input_data_types / output_data_types).
    # None: float32, except an ONNX input or output of type int32, int64 or
    # bool, which keeps its type. The engine converts to and from the float32
    # its ops compute in, refusing integers beyond +-2^24.
    data_type: Optional[str] = None


# The element types a model input or output may have for the app.
IO_DATA_TYPES = ("float32", "int32", "int64", "bool", "uint8")
# Limits the engine enforces when it loads a model; the converter refuses
# models beyond them. mace/core/net.cc: an input dimension is below 2^31 and
# an input holds at most kMaxByteCount (2^40) bytes. mace/core/control_flow.h
# kMaxSubgraphDepth: If/Loop subgraphs nest at most 8 deep.
MAX_DIM = 2**31 - 1
MAX_INPUT_BYTES = 2**40
MAX_SUBGRAPH_DEPTH = 8


@dataclass
class ConvertOptions:
    platform: str                       # "onnx", "tensorflow", "caffe" or "tflite"
    model_file: Path                    # .onnx, frozen .pb, or .prototxt
    weight_file: Optional[Path]         # .caffemodel for Caffe, else None
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    runtime: str = "cpu"                # cpu | gpu | dsp | cpu+gpu
    data_type: str = "fp32_fp32"        # fp32_fp32 | fp16_fp32 | fp16_fp16 | bf16_fp32
    winograd: int = 0                   # 0 off, else the largest tile (2, 4 or 6)
    # int8 weights for FullyConnected, activations quantized per row at run
    # time (transforms/dynamic_quantize.py); CPU, fp32_fp32, not with quantize.
    dynamic_quantize: bool = False
    obfuscate: bool = False
    model_name: str = "model"
    # uint8 post-training quantization (mace_converter.quantize.graph_pass.
    # QuantizeSettings), or None for a float model. An imported QDQ model is
    # quantized from its own scales whenever this is set.
    quantize: Optional[object] = None
    # (input, output) pairs the engine keeps as state between runs: the
    # input becomes a state tensor (zeros at first) that takes the output's
    # value at the end of each run (docs/how-to/streaming_state.md).
    states: list[tuple[str, str]] = field(default_factory=list)
    # Activation types fuse_activation leaves as standalone ops, or None to
    # decide by runtime (transforms.separate_activations); calibration sets
    # it so that its float model has the final model's tensors.
    keep_activations: Optional[tuple[str, ...]] = None


@dataclass
class ConvertedModel:
    """A MACE model ready to be written as .pb + .data or as C++ code."""
    net_def: object                     # mace_pb2.NetDef, offsets into `weights`
    weights: bytes                      # the concatenated, aligned weights blob
    inputs: list[TensorSpec] = field(default_factory=list)   # as the engine sees them
    outputs: list[TensorSpec] = field(default_factory=list)
    # Human-readable lines about what the transforms did (folded BN, fused
    # activations, ...), printed by `converter.py convert`.
    log: list[str] = field(default_factory=list)


class ConversionError(Exception):
    """A problem with the user's model or settings, with a message that names
    the op, node and file; the CLI prints it without a traceback."""
