"""The CPU kernel families a model-specific library links.

The engine's CPU kernels come in families (mace/ops/cpu/kernel_table.h:
gemm, rows, depthwise, winograd, blocked, uint8, fp16), each filled per
instruction set by a file of its own. A build leaves an optional family out
with --define=mace_cpu_kernels_<family>=off (mace/ops/BUILD.bazel); the ops
then take their other kernels. With model_specific_library: 1 the converter
reads which families the converted models can run, writes them beside the
generated op registry, and the build leaves out the rest for each ABI:

- depthwise: a DepthwiseConv2d op, or a grouped Conv2D (one group per
  channel runs on the depthwise kernels);
- winograd: a Conv2D whose `winograd` argument (the deployment file's
  `winograd` key) allows a tile and whose filter is 3x3 with stride and
  dilation 1 (or not a constant, so unknown);
- blocked: a Conv2D, DepthwiseConv2d or Pooling op, on x86-64 only, where
  the channel-blocked layout is the default; on ARM it is not, and a
  model-specific ARM library leaves it out (MaceEngineConfig's
  SetCPUBlockedLayout("on") then keeps the plain layout);
- uint8: an op whose kernel type is uint8 or int8, Quantize, Dequantize or
  DynamicQuantizedFullyConnected; without it the build also leaves out the
  ops' own uint8 and int8 kernels (--define=mace_integer_kernels=off);
- fp16: a model whose CPU data type is fp16_fp16, on arm64 only (the only
  ABI with half-precision arithmetic).

gemm and rows are always linked.

Within the NEON GEMM and depthwise kernels the build also leaves out the
activation variants no op picks (mace/ops/arm/linked_variants.h,
--define=mace_neon_<variant>=off), from each float op's fused activation:
no activation (or one applied by a pass of its own), RELU (a lower clamp
only), RELU6 or RELUX (both bounds, always linked) and, for depthwise, hard
swish. An op left to a variant the build does not link runs the two-sided
clamp with an infinite bound: the same results, a little slower. The
variants are recorded in a file of their own; without it (a registry
generated before they were recorded) every variant is linked.
"""
from __future__ import annotations

from pathlib import Path

from mace_converter.progress import UserError

ALWAYS = ("gemm", "rows")
OPTIONAL = ("depthwise", "winograd", "blocked", "uint8", "fp16")
# mace.proto's DataType values of the integer kernels.
_INTEGER_TYPES = (2, 5)  # DT_UINT8, DT_INT8
_INTEGER_OPS = ("Quantize", "Dequantize", "DynamicQuantizedFullyConnected")
_BLOCKED_OPS = ("Conv2D", "DepthwiseConv2d", "Pooling")
FILE_NAME = "cpu_kernel_families.txt"
VARIANTS = ("gemm_unclamped", "gemm_lower_clamp", "depthwise_unclamped", "depthwise_lower_clamp",
            "depthwise_hardswish") + tuple(
                "eltwise_" + name for name in ("sum", "weighted_sum", "sub", "prod", "div", "min",
                                               "max", "neg", "abs", "sqr_diff"))
# The Eltwise op's `type` argument (mace/ops/ref/eltwise.h) and the NEON row
# kernel's operation it runs (cpu/eltwise_kernel.cc; POW has none).
_ELTWISE_TYPES = {0: "sum", 1: "sub", 2: "prod", 3: "div", 4: "min", 5: "max", 6: "neg",
                  7: "abs", 8: "sqr_diff"}
VARIANTS_FILE_NAME = "neon_kernel_variants.txt"
# Float ops whose CPU kernels apply their fused activation in the GEMM's
# registers (mace/ops/cpu: conv_2d_*, conv_3d_cpu, fully_connected_cpu,
# the callers of FuseActivation), and ops that run the GEMM with no clamp.
_GEMM_FUSING_OPS = ("Conv2D", "Conv3D", "FullyConnected")
_GEMM_PLAIN_OPS = ("MatMul", "Attention", "GRU", "LSTM", "RNN")


def _arg(op, name: str):
    for arg in op.arg:
        if arg.name == name:
            return arg
    return None


def _ints(op, name: str, default: list[int]) -> list[int]:
    arg = _arg(op, name)
    if arg is None:
        return default
    return list(arg.ints) if arg.ints else [arg.i]


def _clamp_variant(op) -> str:
    """The clamp a kernel applies for op's fused activation
    (mace/ops/common/activation.cc, mace/ops/cpu/fused_activation.cc)."""
    arg = _arg(op, "activation")
    name = arg.s.decode() if arg is not None else "NOOP"
    if name == "RELU":
        return "lower_clamp"
    if name in ("RELUX", "RELU6"):
        limit = _arg(op, "activation_max_limit")
        bound = 6.0 if name == "RELU6" or limit is None else limit.f
        return "lower_clamp" if bound == float("inf") else "clamp"
    if name == "HARDSWISH":
        return "hardswish"
    return "unclamped"


def _is_depthwise(op) -> bool:
    return op.type == "DepthwiseConv2d" or (op.type == "Conv2D" and
                                            _ints(op, "group", [1])[0] > 1)


def _winograd_candidate(op, weights: dict) -> bool:
    if _ints(op, "winograd", [0])[0] not in (2, 4, 6):
        return False
    if any(s != 1 for s in _ints(op, "strides", [1, 1])):
        return False
    if any(d != 1 for d in _ints(op, "dilations", [1, 1])):
        return False
    filt = weights.get(op.input[1]) if len(op.input) > 1 else None
    if filt is None:
        return True  # computed at run time: any shape
    dims = list(filt.dims)
    return len(dims) == 4 and dims[2] == 3 and dims[3] == 3


def _eltwise_variant(op) -> str:
    """The NEON element-wise operation an Eltwise op runs: a SUM with
    coefficients other than 1 and 1 is the weighted sum."""
    name = _ELTWISE_TYPES.get(_ints(op, "type", [-1])[0], "")
    coeff = _arg(op, "coeff")
    if name == "sum" and coeff is not None and list(coeff.floats) not in ([], [1.0, 1.0]):
        return "weighted_sum"
    return name


def net_families(net, cpu_fp16: bool = False) -> set[str]:
    """The optional families the ops of `net` (a NetDef, subgraphs
    included) can run, on any ABI, and the NEON kernel variants (VARIANTS)
    they pick."""
    families: set[str] = {"fp16"} if cpu_fp16 else set()
    pending = [net]
    while pending:
        current = pending.pop()
        pending.extend(current.subgraphs)
        weights = {tensor.name: tensor for tensor in current.tensors}
        for op in current.op:
            kernel_type = _ints(op, "T", [1])[0]
            if kernel_type in _INTEGER_TYPES or op.type in _INTEGER_OPS:
                families.add("uint8")
            depthwise = _is_depthwise(op)
            if depthwise:
                families.add("depthwise")
            if kernel_type not in _INTEGER_TYPES:
                variant = _clamp_variant(op)
                if depthwise:
                    families.add("depthwise_" + variant)
                if op.type in _GEMM_FUSING_OPS:
                    # A grouped Conv2D may run either kernel.
                    families.add("gemm_" + variant)
                elif op.type in _GEMM_PLAIN_OPS:
                    families.add("gemm_unclamped")
                elif op.type == "Activation":
                    # The engine may fold it into the op before it.
                    families.update(("depthwise_" + variant, "gemm_" + variant))
            if op.type == "Eltwise" and kernel_type not in _INTEGER_TYPES:
                families.add("eltwise_" + _eltwise_variant(op))
            if op.type == "Conv2D" and _winograd_candidate(op, weights):
                families.add("winograd")
            if op.type in _BLOCKED_OPS:
                families.add("blocked")
    return families & (set(OPTIONAL) | set(VARIANTS))


def graph_families(graph: Path, cpu_fp16: bool = False) -> set[str]:
    """net_families of a converted model (.pb)."""
    from mace_tools import proto
    net = proto.load().NetDef()
    try:
        net.ParseFromString(graph.read_bytes())
    except (OSError, ValueError) as error:
        raise UserError(f"cannot read the converted model {graph}: {error}") from None
    return net_families(net, cpu_fp16)


def for_abi(families: set[str], abi: str) -> set[str]:
    """The families an `abi` build links: the always-linked ones, and of
    `families` those the ABI runs by default; and the NEON variants it
    links: on ARM those in `families`, elsewhere all (they are ARM's)."""
    linked = set(ALWAYS) | (families & set(OPTIONAL))
    if abi in ("arm64-v8a", "armeabi-v7a"):
        linked.discard("blocked")
        linked |= families & set(VARIANTS)
    else:
        linked |= set(VARIANTS)
    if abi != "arm64-v8a":
        linked.discard("fp16")
    return linked


def define_flags(linked: set[str]) -> list[str]:
    """The Bazel flags that leave out every optional family not in `linked`,
    and without uint8 the ops' integer kernels too (their drivers run on
    that family and no model of the library runs them)."""
    flags = [f"--define=mace_cpu_kernels_{family}=off"
             for family in OPTIONAL if family not in linked]
    if "uint8" not in linked:
        flags.append("--define=mace_integer_kernels=off")
    flags += [f"--define=mace_neon_{variant}=off" for variant in VARIANTS
              if variant not in linked]
    return flags


def _write(path: Path, names: set[str]) -> None:
    text = "\n".join(sorted(names)) + "\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write(directory: Path, families: set[str]) -> None:
    """Records the families and, in a file of their own, the variants."""
    _write(directory / FILE_NAME, families & set(OPTIONAL))
    _write(directory / VARIANTS_FILE_NAME, families & set(VARIANTS))


def _read(path: Path, known: tuple, what: str) -> set[str]:
    if not path.exists():
        return set(known)
    names = {line.strip() for line in path.read_text().splitlines() if line.strip()}
    unknown = names - set(known)
    if unknown:
        raise UserError(f"{path}: unknown {what} {', '.join(sorted(unknown))}; "
                        "convert the deployment again")
    return names


def read(directory: Path) -> set[str]:
    """What write() recorded: the families and the variants; every optional
    family, and every variant, where there is no record of them (a registry
    generated before they were recorded)."""
    return (_read(directory / FILE_NAME, OPTIONAL, "kernel families") |
            _read(directory / VARIANTS_FILE_NAME, VARIANTS, "NEON kernel variants"))
