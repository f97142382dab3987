"""Integer TFLite models (int8 or uint8 activations, per-channel symmetric
int8 weights, QUANTIZE and DEQUANTIZE at the float edges), carried the way
the ONNX frontend carries QDQ models (onnx_qdq.py).

Every quantized activation is held as its real value: each op computes in
float on its inputs' real values, and its output then passes a fake
quantization (the engine's QuantizeLinear -> DequantizeLinear) with the
output tensor's scale and zero point, which rounds and saturates as the
integer kernel's requantization does. The scale and zero point are recorded
in Graph.imported_quant (int8 ones as the uint8 ones with the zero point
moved up by 128, which is exact) and the pairs in Graph.fake_quant, so that
`quantize: 1` maps the model onto the engine's uint8 kernels with the
model's own parameters. Quantized weights are dequantized at import; the
scales of symmetric int8 weights are kept in Graph.imported_weight_scales.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.frontends import tflite_weights
from mace_converter.frontends.onnx_qdq import fake_quantize
from mace_converter.frontends.tflite_model import Tensor, TfliteModel
from mace_converter.ir import QuantParams

# Types of quantized activations, with the engine QuantizeLinear's name.
ACTIVATION_TYPES = {9: "INT8", 3: "UINT8"}
# Ops whose output is a selection or rearrangement of their input's values:
# with the same scale and zero point on both sides they need no rounding.
MOVES_VALUES = {"RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "MAX_POOL_2D", "PAD",
                "PADV2", "SLICE", "STRIDED_SLICE", "GATHER", "SPLIT", "SPLIT_V", "PACK",
                "UNPACK", "CONCATENATION", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "REVERSE_V2",
                "RESIZE_NEAREST_NEIGHBOR", "REDUCE_MAX", "REDUCE_MIN", "MAXIMUM", "MINIMUM",
                "RELU", "RELU6", "RELU_N1_TO_1"}


def quantized_activation(tensor: Tensor) -> bool:
    return tensor.dtype in ACTIVATION_TYPES and tensor.quant is not None


def dequantize_constants(model: TfliteModel, values: dict[str, np.ndarray],
                         names: list[str]) -> dict[str, np.ndarray]:
    """Replaces every quantized integer constant in `values` by its real
    values. Returns the per-channel scales of symmetric int8 ones."""
    scales = {}
    for tensor in model.tensors:
        name = names[tensor.index]
        value = values.get(name)
        if value is None or tensor.quant is None or value.dtype.kind not in "iu" or \
                tensor.sparsity is not None:
            continue
        values[name] = tflite_weights.dequantize(tensor, value)
        if value.dtype == np.int8 and not np.any(tensor.quant.zero_point):
            scales[name] = tensor.quant.scale.astype(np.float32)
    return scales


def uint8_params(tensor: Tensor) -> Optional[QuantParams]:
    """The uint8 parameters equal to a per-tensor int8 or uint8 quantization."""
    quant = tensor.quant
    if quant is None or quant.scale.size != 1:
        return None
    scale = float(quant.scale[0])
    if not (np.isfinite(scale) and scale > 0):
        raise ConversionError(f"tensor {tensor.index} '{tensor.name}' has scale {scale}; a "
                              "scale must be finite and positive")
    zero = int(quant.zero_point[0]) + (128 if tensor.dtype == 9 else 0)
    if not 0 <= zero <= 255:
        raise ConversionError(f"tensor {tensor.index} '{tensor.name}' has zero point "
                              f"{int(quant.zero_point[0])} outside its type's range")
    return QuantParams(scale=scale, zero_point=zero, minval=scale * -zero,
                       maxval=scale * (255 - zero))


def same_params(a: Tensor, b: Tensor) -> bool:
    return a.quant is not None and b.quant is not None and a.dtype == b.dtype and \
        np.array_equal(a.quant.scale, b.quant.scale) and \
        np.array_equal(a.quant.zero_point, b.quant.zero_point)


def needs_rounding(node, model: TfliteModel) -> list[int]:
    """Output positions of `node` that hold quantized activations and need
    the fake quantization after the float op."""
    outputs = []
    ins = [model.tensors[i] for i in node.op.inputs if i >= 0 and
           quantized_activation(model.tensors[i])]
    for position, index in enumerate(node.op.outputs):
        tensor = model.tensors[index]
        if not quantized_activation(tensor):
            continue
        if node.op_type in MOVES_VALUES and ins and all(same_params(t, tensor) for t in ins):
            params = uint8_params(tensor)
            if params is not None:
                node.graph.imported_quant[node.outputs[position]] = params
            continue
        outputs.append(position)
    return outputs


def round_output(node, source: str, target: str, tensor: Tensor) -> None:
    """target = the fake quantization of `source` with `tensor`'s parameters."""
    params = uint8_params(tensor)
    if params is None:
        raise node.fail(f"output '{target}' is quantized per channel; per-tensor "
                        "quantized activations are supported")
    zero = int(tensor.quant.zero_point[0])
    scale = node.weight(f"{target}/scale", np.array(tensor.quant.scale[0], np.float32))
    zero_point = node.weight(f"{target}/zero_point", np.array(zero, np.float32))
    args = {"axis": 1, "block_size": 0, "to": ACTIVATION_TYPES[tensor.dtype], "saturate": 1}
    fake_quantize(node, source, target, scale, zero_point, args, params)
    for name in (source, target):
        node.graph.imported_quant[name] = params
