"""Which ops of a converted uint8 model the Hexagon DSP runs (runtime: dsp).

The engine sends a uint8 model to the DSP as one graph
(mace/runtimes/hexagon/hexagon_executor.cc); these rules mirror what its
translation accepts, so that a model it would refuse fails at conversion,
with every op it lacks named in one error. Float ops after the DSP's
outputs (a Softmax kept in float, say) run on the CPU. The engine checks
again, in full, when it is created.
"""
from __future__ import annotations

from mace_converter.api import ConversionError

# DataType values of mace/proto/mace.proto.
_DT_UINT8 = 2
_DT_INT8 = 5
# Op types with a DSP kernel (mace/dsp/kernels_table.cc), and the ones
# that only rename a tensor.
DSP_OPS = ("Conv2D", "DepthwiseConv2d", "Pooling", "Eltwise", "Concat", "FullyConnected",
           "ResizeBilinear", "Softmax")
RENAMES = ("Reshape", "Squeeze", "Identity")
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


def _problem(op, args: dict, weights: dict) -> str:
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
    if op.type == "Softmax" and args.get("use_log", 0) != 0:
        return "log-softmax"
    return ""


def unsupported_ops(net_def) -> list[str]:
    """'name (type): reason' for each op of `net_def` the DSP cannot run.
    Float ops that read only Dequantize outputs (and what such ops write)
    run on the CPU after the DSP, as the engine does."""
    weights = {tensor.name: tensor for tensor in net_def.tensors}
    app_inputs = {info.name for info in net_def.input_info}
    host_side: set[str] = set()
    problems = []
    for op in net_def.op:
        args = _args(op)
        activations = [name for name in op.input if name and name not in weights]
        reads_host = any(name in host_side for name in activations)
        float_op = args.get("T") != _DT_UINT8
        if op.type == "Quantize":
            reason = "" if op.input[0] in app_inputs else "a Quantize inside the graph"
        elif op.type == "Dequantize":
            host_side.update(op.output)
            reason = ""
        elif reads_host:
            if float_op and all(name in host_side for name in activations):
                host_side.update(op.output)
                reason = ""
            else:
                reason = "reads a tensor the CPU computes after the DSP"
        elif float_op:
            reason = "float (no uint8 kernel for it, or not quantized)"
        else:
            reason = _problem(op, args, weights)
        if reason:
            problems.append(f"{op.name} ({op.type}): {reason}")
    return problems


def check(net_def, model_name: str) -> None:
    """Raises one ConversionError naming every op the DSP lacks."""
    problems = unsupported_ops(net_def)
    if problems:
        raise ConversionError(
            f"runtime dsp cannot run {len(problems)} op(s) of {model_name}; the Hexagon DSP "
            "runs the uint8 graph, and only float ops after its outputs run on the CPU:\n  "
            + "\n  ".join(problems))
