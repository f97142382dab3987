"""Where the ops of a converted uint8 model run under runtime: dsp.

The engine offers each op to the Hexagon DSP in model order, and an op the
DSP cannot run falls back to the CPU's kernel
(mace/runtimes/hexagon/hexagon_executor.cc). Consecutive DSP ops form one
DSP graph (a segment); the CPU runs the ops between them, and the tensors
that cross pass through the host as uint8 with their quantization. These
rules mirror the engine's translation, so that the converter can report
the placement; the engine decides again, in full, when it is created.
"""
from __future__ import annotations

from dataclasses import dataclass

from mace_converter.api import ConversionError
from mace_converter.dsp_op_list import DSP_KERNELS
from mace_converter.dsp_op_list import RENAMES as _RENAMES

# DataType values of mace/proto/mace.proto.
_DT_UINT8 = 2
_DT_INT8 = 5
# Op types the Hexagon executor gives a DSP kernel, and the ones that only
# rename a tensor: mace/dsp/ops.inc, through dsp_op_list.py.
DSP_OPS = tuple(DSP_KERNELS)
RENAMES = _RENAMES
_WEIGHTED = ("Conv2D", "DepthwiseConv2d", "FullyConnected")


def _args(op) -> dict:
    values = {}
    for arg in op.arg:
        if arg.HasField("i"):
            values[arg.name] = arg.i
        elif arg.HasField("f"):
            values[arg.name] = arg.f
        elif len(arg.ints):
            values[arg.name] = list(arg.ints)
        elif len(arg.floats):
            values[arg.name] = list(arg.floats)
        else:
            values[arg.name] = None
    return values


def _quantization(net_def) -> dict:
    """(scale, zero point) of each tensor the model states one for."""
    quant = {info.name: (info.scale, info.zero_point) for info in net_def.input_info
             if info.HasField("scale")}
    quant.update((t.name, (t.scale, t.zero_point)) for t in net_def.tensors)
    for op in net_def.op:
        for name, info in zip(op.output, op.quantize_info):
            quant[name] = (info.scale, info.zero_point)
    return quant


def _problem(op, args: dict, weights: dict, quant: dict) -> str:
    """Why the DSP cannot run `op`, or ""."""
    if op.type in RENAMES:
        return ""
    if op.type not in DSP_OPS:
        return "no DSP kernel"
    if op.type in _WEIGHTED:
        weight = weights.get(op.input[1]) if len(op.input) > 1 else None
        if weight is None or weight.data_type not in (_DT_UINT8, _DT_INT8):
            return "the DSP takes uint8 or int8 weights"
        if args.get("group", 1) != 1:
            return "grouped convolution"
        if op.type == "DepthwiseConv2d" and weight.dims[0] != 1:
            return "a depthwise channel multiplier above 1"
    if op.type == "Pooling" and args.get("ceil_mode", 0) != 0:
        return "ceil_mode"
    if op.type == "Eltwise":
        if len(op.input) != 2 or "coeff" in args:
            return "the DSP takes two inputs and no coefficients"
        if args.get("type", -1) not in (0, 1, 2):
            return "the DSP has SUM, SUB and PROD only"
    if op.type == "Concat":
        rank = len(op.output_shape[0].dims) if op.output_shape else 4
        axis = args.get("axis", 1)
        if rank != 4 or axis not in (1, 1 - rank):
            return "the DSP concatenates channels of 4-D tensors only"
        out = quant.get(op.output[0])
        if out is not None and any(quant.get(name, out) != out for name in op.input):
            return "the DSP concatenates inputs quantized as the output only"
    if op.type == "Softmax" and args.get("use_log", 0) != 0:
        return "log-softmax"
    return ""


@dataclass
class PlacedOp:
    name: str
    type: str
    on_dsp: bool
    reason: str  # why it runs on the CPU; "" on the DSP


def placement(net_def) -> list[PlacedOp]:
    """Each op of `net_def` with the side the engine runs it on."""
    weights = {tensor.name: tensor for tensor in net_def.tensors}
    quant = _quantization(net_def)
    placed = []
    dsp_written: set[str] = set()  # by the current DSP segment
    for op in net_def.op:
        args = _args(op)
        if op.type in ("Quantize", "Dequantize"):
            reason = "converts between float and uint8 on the host"
        elif args.get("T") != _DT_UINT8:
            reason = "float (no uint8 kernel for it, or not quantized)"
        elif op.type in RENAMES and (not op.input or op.input[0] not in dsp_written):
            reason = "renames a tensor the CPU holds"
        else:
            reason = _problem(op, args, weights, quant)
        on_dsp = not reason
        if on_dsp:
            if not placed or not placed[-1].on_dsp:
                dsp_written = set()
            dsp_written.update(op.output)
        placed.append(PlacedOp(op.name, op.type, on_dsp, reason))
    return placed


def segments(placed: list[PlacedOp]) -> int:
    """How many DSP graphs the engine sets up."""
    return sum(1 for i, op in enumerate(placed)
               if op.on_dsp and (i == 0 or not placed[i - 1].on_dsp))


def unsupported_ops(net_def) -> list[str]:
    """'name (type): reason' for each uint8 op the DSP lacks (these run on
    the CPU, between DSP segments)."""
    return [f"{op.name} ({op.type}): {op.reason}" for op in placement(net_def)
            if not op.on_dsp and op.type not in ("Quantize", "Dequantize")
            and not op.reason.startswith("float")]


def report(net_def, model_name: str) -> list[str]:
    """The placement as log lines: a summary, then one line per CPU op.
    Raises ConversionError when the DSP would run none of the ops."""
    placed = placement(net_def)
    on_dsp = sum(op.on_dsp for op in placed)
    cpu_lines = [f"  CPU: {op.name} ({op.type}): {op.reason}" for op in placed if not op.on_dsp]
    if on_dsp == 0:
        raise ConversionError(
            f"runtime dsp: the Hexagon DSP can run no op of {model_name}:\n"
            + "\n".join(cpu_lines))
    return [f"{model_name}: runtime dsp places {on_dsp} op(s) on the DSP in "
            f"{segments(placed)} segment(s) and {len(placed) - on_dsp} on the CPU"] + cpu_lines
