"""One spec per engine op type the converter emits into a NetDef: where it
is documented, its uint8 quantization (if the engine has a uint8 kernel),
whether the Hexagon DSP runs it, its shape rule and its numpy reference.

The table below is the one list of engine op types. Shape rules
(`shape_inference.rule`) and numpy kernels (`numpy_ops.kernel`) attach
themselves to an existing spec when their module is imported; attaching to
an op type without a spec fails at import. `all_specs()` imports both, so
every spec it returns is complete. tests/converter_front/test_op_specs.py
checks the table against the C++ registrations and the docs.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any, Optional

from mace_converter.quantize import uint8_kernels as u8
from mace_converter.quantize.uint8_kernels import FIXED, FOLLOWS_INPUT, KEEP_INPUT, Uint8Kernel


@dataclass
class OpSpec:
    op_type: str
    # The docs page (under docs/reference/) and section documenting the op.
    docs: str
    uint8: Optional[Uint8Kernel] = None
    # Why the op has no numpy reference kernel ("" when it has one).
    no_numpy: str = ""
    shape_rule: Optional[Callable] = None
    numpy_kernel: Optional[Callable] = None


_CONV = "ops/conv_family.md#"
_ELEMENTWISE = "ops/elementwise.md#"
_MORE = "ops/more.md#"
_RECURRENT = "ops/recurrent.md#recurrent-ops"
_SHAPE = "ops/shape.md#"
_SPATIAL = "ops/spatial.md#"
_INDEX = "ops.md#supported-ops"
_RESIZE = _SPATIAL + "resizebilinear-and-resizenearestneighbor"
_COMPARE = _MORE + "compare-mod-and-where"
_GATHER = _MORE + "gather-gatherelements-gathernd-scatterelements-scatternd"
_AXIS = _MORE + "trilu-cumsum-tile-topk"
_SUBGRAPHS = "runs engine subgraphs, which a numpy kernel (arrays and arguments) cannot take"
_QUANTIZATION = ("its scale and zero point are tensor quantization info, which a numpy "
                 "kernel (arrays and arguments) does not receive")
_CONV_UINT8 = dict(weight=1, bias=2, per_channel=True, accepts=u8.fused_clampable)

SPECS: dict[str, OpSpec] = {spec.op_type: spec for spec in (
    OpSpec("Activation", _ELEMENTWISE + "activation",
           uint8=Uint8Kernel(output=KEEP_INPUT, accepts=u8.activation)),
    OpSpec("ArgMax", _SPATIAL + "argmax"),
    OpSpec("Assign", _INDEX, no_numpy="writes a state tensor kept between runs, which a "
           "numpy kernel (arrays in, arrays out) cannot hold"),
    OpSpec("Attention", _MORE + "attention"),
    OpSpec("BatchNorm", _ELEMENTWISE + "batchnorm"),
    OpSpec("BatchToSpaceND", _SPATIAL + "batchtospacend"),
    OpSpec("BiasAdd", _ELEMENTWISE + "biasadd"),
    OpSpec("Bitwise", _MORE + "bitwise"),
    OpSpec("Cast", _ELEMENTWISE + "cast"),
    OpSpec("ChannelShuffle", _SPATIAL + "channelshuffle", uint8=FOLLOWS_INPUT),
    OpSpec("Compare", _COMPARE),
    OpSpec("Concat", _SHAPE + "concat", uint8=Uint8Kernel(activations=None)),
    OpSpec("Conv2D", _CONV + "conv2d", uint8=Uint8Kernel(**_CONV_UINT8)),
    OpSpec("Conv3D", _CONV + "conv3d"),
    OpSpec("CumSum", _AXIS),
    OpSpec("Deconv2D", _CONV + "deconv2d"),
    OpSpec("Deconv3D", _CONV + "deconv3d"),
    OpSpec("DepthToSpace", _SPATIAL + "depthtospace"),
    OpSpec("DepthwiseConv2d", _CONV + "depthwiseconv2d",
           uint8=Uint8Kernel(**_CONV_UINT8, channel_layout="depthwise")),
    OpSpec("Dequantize", _INDEX, no_numpy=_QUANTIZATION),
    OpSpec("DequantizeLinear", _INDEX),
    OpSpec("Dropout", _INDEX),
    OpSpec("Eltwise", _ELEMENTWISE + "eltwise",
           uint8=Uint8Kernel(activations=None, accepts=u8.eltwise)),
    OpSpec("DynamicQuantizedFullyConnected", _CONV + "dynamicquantizedfullyconnected"),
    OpSpec("FullyConnected", _CONV + "fullyconnected", uint8=Uint8Kernel(**_CONV_UINT8)),
    OpSpec("GRU", _RECURRENT),
    OpSpec("Gather", _GATHER),
    OpSpec("GatherDequantize", _GATHER),
    OpSpec("GatherElements", _GATHER),
    OpSpec("GatherND", _GATHER),
    OpSpec("GridSample", _SPATIAL + "gridsample"),
    OpSpec("Identity", _INDEX, uint8=FOLLOWS_INPUT),
    OpSpec("If", _INDEX, no_numpy=_SUBGRAPHS),
    OpSpec("LSTM", _RECURRENT),
    OpSpec("LayerNorm", _MORE + "layernorm"),
    OpSpec("LocalResponseNorm", _SPATIAL + "localresponsenorm"),
    OpSpec("Loop", _INDEX, no_numpy=_SUBGRAPHS),
    # uint8 x uint8 only (no int8 B), one multiplier, no bias.
    OpSpec("MatMul", _CONV + "matmul",
           uint8=Uint8Kernel(weight=1, weight_may_vary=True, accepts=u8.matmul)),
    OpSpec("MaxPool3D", _CONV + "maxpool3d"),
    OpSpec("MaxPoolArgmax", _CONV + "maxpoolargmax-and-maxunpool"),
    OpSpec("MaxUnpool", _CONV + "maxpoolargmax-and-maxunpool"),
    OpSpec("Mod", _COMPARE),
    OpSpec("NonMaxSuppression", _SPATIAL + "nonmaxsuppression"),
    OpSpec("Pad", _SHAPE + "pad", uint8=FOLLOWS_INPUT),
    OpSpec("Pooling", _CONV + "pooling", uint8=FOLLOWS_INPUT),
    OpSpec("Quantize", _INDEX, no_numpy=_QUANTIZATION),
    OpSpec("QuantizeLinear", _INDEX),
    OpSpec("RNN", _RECURRENT),
    OpSpec("Reduce", _SPATIAL + "reduce"),
    OpSpec("Reshape", _SHAPE + "reshape", uint8=FOLLOWS_INPUT),
    OpSpec("Resize", _SPATIAL + "resize"),
    OpSpec("RoiAlign", _SPATIAL + "roialign"),
    OpSpec("ResizeBilinear", _RESIZE, uint8=FOLLOWS_INPUT),
    OpSpec("ResizeNearestNeighbor", _RESIZE),
    OpSpec("Scan", _INDEX, no_numpy=_SUBGRAPHS),
    OpSpec("ScatterElements", _GATHER),
    OpSpec("ScatterND", _GATHER),
    OpSpec("Slice", _SHAPE + "slice", uint8=FOLLOWS_INPUT),
    OpSpec("Softmax", _ELEMENTWISE + "softmax",
           uint8=Uint8Kernel(output=FIXED, fixed_output=u8.SOFTMAX_OUTPUT, accepts=u8.softmax)),
    OpSpec("SpaceToBatchND", _SPATIAL + "spacetobatchnd"),
    OpSpec("SpaceToDepth", _SPATIAL + "spacetodepth"),
    OpSpec("Split", _SHAPE + "split", uint8=FOLLOWS_INPUT),
    OpSpec("Squeeze", _SHAPE + "squeeze", uint8=FOLLOWS_INPUT),
    OpSpec("Tile", _AXIS),
    OpSpec("TopK", _AXIS),
    OpSpec("Transpose", _SHAPE + "transpose", uint8=FOLLOWS_INPUT),
    OpSpec("Trilu", _AXIS),
    OpSpec("Unary", _ELEMENTWISE + "unary"),
    OpSpec("Where", _COMPARE),
)}


def spec(op_type: str) -> OpSpec:
    found = SPECS.get(op_type)
    if found is None:
        raise KeyError(f"no OpSpec for engine op type {op_type}; add one to "
                       f"mace_converter/op_specs.py")
    return found


def attach(field: str, *op_types: str) -> Callable[[Callable], Callable]:
    """A decorator that sets `field` of the specs of `op_types` to the function."""
    def register(fn: Callable) -> Callable:
        for op_type in op_types:
            setattr(spec(op_type), field, fn)
        return fn
    return register


def all_specs() -> dict[str, OpSpec]:
    """Every spec, with the shape rules and numpy kernels attached."""
    importlib.import_module("mace_converter.shape_inference")
    importlib.import_module("mace_converter.numpy_ops")
    return SPECS


class SpecField(MutableMapping[str, Any]):
    """One field of the specs by op type, over the specs where it is set.
    Setting an entry sets the field of an existing spec; deleting clears it."""

    def __init__(self, field: str) -> None:
        self._field = field

    def __getitem__(self, op_type: str) -> Any:
        value = getattr(SPECS[op_type], self._field) if op_type in SPECS else None
        if value is None:
            raise KeyError(op_type)
        return value

    def __setitem__(self, op_type: str, value: Any) -> None:
        setattr(spec(op_type), self._field, value)

    def __delitem__(self, op_type: str) -> None:
        if op_type not in self:
            raise KeyError(op_type)
        setattr(SPECS[op_type], self._field, None)

    def __iter__(self) -> Iterator[str]:
        return (op_type for op_type, found in SPECS.items()
                if getattr(found, self._field) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)
