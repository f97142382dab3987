"""The FMA peak of one core, measured in the same run as the latencies, and
each model's arithmetic, so that a model's one-thread speed can be read as
a share of the peak.

The peak is `BM_FmaPeak/<isa>/1` of `//mace/ops:cpu_gemm_benchmark`
(independent FMA chains in registers, CPU time) for the widest instruction
set the CPU runs; the arithmetic is the multiply-adds of the ONNX model's
Conv, Gemm and MatMul nodes, from ONNX shape inference (a Winograd layer
does fewer, so its GFLOP/s is the direct convolution's)."""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from mace_converter.progress import REPO, UserError, run_command
from mace_tools.avx2_cap import CapError

if TYPE_CHECKING:
    from mace_tools.peer_bench.cap import Cap

TARGET = "//mace/ops:cpu_gemm_benchmark"
BINARY = Path("mace/ops/cpu_gemm_benchmark")
# Widest first: the first that runs on this CPU is the peak.
ISA_ORDER = ("avx512", "avx2", "neon")
REPETITIONS = 5
FILTER = "^BM_FmaPeak/[a-z0-9]+/1$"


@dataclass
class FmaPeak:
    benchmark: str        # e.g. BM_FmaPeak/avx512/1
    gflops: float         # median over the repetitions
    repetitions: int


def command(binary: Path, repetitions: int = REPETITIONS) -> list[str]:
    return [str(binary), f"--benchmark_filter={FILTER}", "--benchmark_format=json",
            f"--benchmark_repetitions={repetitions}",
            "--benchmark_report_aggregates_only=true"]


def parse(text: str) -> Optional[FmaPeak]:
    """The widest instruction set's median FLOP/s from google-benchmark JSON
    (aggregates, or single runs when there was one repetition); None when
    no one-thread peak ran."""
    document = json.loads(text)
    found: dict[str, FmaPeak] = {}
    for entry in document.get("benchmarks", []):
        if entry.get("error_occurred"):
            continue
        name = entry.get("run_name", entry.get("name", ""))
        parts = name.split("/")
        if len(parts) != 3 or parts[0] != "BM_FmaPeak" or parts[2] != "1":
            continue
        aggregate = entry.get("aggregate_name")
        if entry.get("run_type") == "aggregate" and aggregate != "median":
            continue
        flops = entry.get("FLOP/s")
        if not isinstance(flops, (int, float)) or flops <= 0:
            continue
        repetitions = int(entry.get("repetitions", 1)) if aggregate else 1
        if aggregate or parts[1] not in found:
            found[parts[1]] = FmaPeak(benchmark=name, gflops=flops / 1e9,
                                      repetitions=repetitions)
    for isa in ISA_ORDER:
        if isa in found:
            return found[isa]
    return None


def measure(build: bool, timeout: float, log: Callable[[str], None],
            cap: Optional["Cap"] = None) -> tuple[Optional[FmaPeak], str]:
    """Builds (unless told not to) and runs the peak benchmark once, under
    the AVX2 cap when one is given (the AVX-512 peak then skips itself);
    returns the peak and an error ('' when it worked)."""
    try:
        if build:
            run_command(["bazel", "build", "--color=no", "--curses=no", TARGET],
                        what="bazel build of the FMA peak benchmark", cwd=REPO)
        bin_dir = run_command(["bazel", "info", "--color=no", "bazel-bin"],
                              what="bazel info", cwd=REPO).stdout.strip()
    except UserError as error:
        return None, str(error).splitlines()[0]
    binary = Path(bin_dir) / BINARY
    if not binary.is_file():
        return None, f"{binary} is missing (build {TARGET})"
    env = None
    try:
        if cap is not None:
            binary, env = cap.binary(binary), cap.environment()
        result = subprocess.run(command(binary), capture_output=True, text=True, env=env,
                                timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired, CapError) as error:
        return None, f"{binary.name}: {error}"
    if result.returncode != 0:
        return None, f"{binary.name} exited with {result.returncode}"
    if cap is not None and not cap.answered(result.stderr):
        return None, f"{binary.name} asked the AVX2 cap no cpuid"
    try:
        peak = parse(result.stdout)
    except ValueError as error:
        return None, f"{binary.name} printed no JSON: {error}"
    if peak is None:
        return None, f"{binary.name} ran no one-thread FMA peak"
    log(f"    {peak.benchmark}: {peak.gflops:.1f} GFLOP/s (median of {peak.repetitions})")
    return peak, ""


def multiply_adds(onnx_path: Path) -> Optional[int]:
    """Multiply-adds of the model's Conv, Gemm and MatMul nodes, or None when
    a shape is unknown."""
    import onnx
    model = onnx.shape_inference.infer_shapes(onnx.load(str(onnx_path)))
    graph = model.graph
    shapes = {}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        dims = value.type.tensor_type.shape.dim
        shapes[value.name] = [d.dim_value if d.HasField("dim_value") else 0 for d in dims]
    for tensor in graph.initializer:
        shapes[tensor.name] = list(tensor.dims)
    total = 0
    for node in graph.node:
        if node.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        # The second input (weights, or B) and the output fix the count;
        # the first input's shape is often unknown after a Reshape.
        b, out = shapes.get(node.input[1]), shapes.get(node.output[0])
        if not b or not out or 0 in b + out:
            return None
        total += node_multiply_adds(node.op_type, b, out, _int_attributes(node))
    return total


def node_multiply_adds(op_type: str, b: list[int], out: list[int],
                       attributes: dict[str, int]) -> int:
    """One node's multiply-adds from its second input's (the weights') and
    its output's shapes."""
    if op_type == "Conv":
        # Weights are [M, C/group, kh, kw]: each output value takes C/group*kh*kw.
        per_output = 1
        for dim in b[1:]:
            per_output *= dim
        outputs = 1
        for dim in out:
            outputs *= dim
        return outputs * per_output
    if op_type == "Gemm":
        k = b[1] if attributes.get("transB") else b[0]
        return out[0] * out[1] * k
    # MatMul: batch dimensions broadcast; K is B's second last (or only) one.
    outputs = 1
    for dim in out:
        outputs *= dim
    return outputs * (b[-2] if len(b) >= 2 else b[0])


def _int_attributes(node) -> dict[str, int]:
    return {attribute.name: attribute.i for attribute in node.attribute
            if attribute.type == attribute.INT}
