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


def _ints(op, name: str, default: list[int]) -> list[int]:
    for arg in op.arg:
        if arg.name == name:
            return list(arg.ints) if arg.ints else [arg.i]
    return default


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


def net_families(net, cpu_fp16: bool = False) -> set[str]:
    """The optional families the ops of `net` (a NetDef, subgraphs
    included) can run, on any ABI."""
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
            if op.type == "DepthwiseConv2d" or (op.type == "Conv2D" and
                                                _ints(op, "group", [1])[0] > 1):
                families.add("depthwise")
            if op.type == "Conv2D" and _winograd_candidate(op, weights):
                families.add("winograd")
            if op.type in _BLOCKED_OPS:
                families.add("blocked")
    return families


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
    `families` those the ABI runs by default."""
    linked = set(ALWAYS) | (families & set(OPTIONAL))
    if abi in ("arm64-v8a", "armeabi-v7a"):
        linked.discard("blocked")
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
    return flags


def write(directory: Path, families: set[str]) -> None:
    path = directory / FILE_NAME
    text = "\n".join(sorted(families & set(OPTIONAL))) + "\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def read(directory: Path) -> set[str]:
    """The families write() recorded; every optional family when there is
    no record (a registry generated before families were recorded)."""
    path = directory / FILE_NAME
    if not path.exists():
        return set(OPTIONAL)
    families = {line.strip() for line in path.read_text().splitlines() if line.strip()}
    unknown = families - set(OPTIONAL)
    if unknown:
        raise UserError(f"{path}: unknown kernel families {', '.join(sorted(unknown))}; "
                        "convert the deployment again")
    return families
