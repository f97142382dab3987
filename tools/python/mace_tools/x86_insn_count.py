"""Counts the x86-64 instructions one inference executes on a CPU with AVX2
and FMA but no AVX-512, under qemu-user, for MACE, onnxruntime and ncnn: the
x86 twin of tools/arm_insn_count.sh, for hosts this machine is not.

    tools/x86_insn_count.sh [--models mobilenet_v1,resnet18] [--engines mace,ort]
                            [--cpu Haswell] [--caches 32K:8,512K:8] [--report PATH]

Each engine runs one thread under `qemu-x86_64 -cpu Haswell` (an AVX2 + FMA
model without AVX-512; TCG executes AVX2 and FMA3 but not AVX-512) with the
instruction-count plugin (tools/qemu/insn_count.c). Every engine picks its
kernels from cpuid, which the qemu model answers: MACE (the host mace_run,
which must print that it chose its avx2_fma kernels), onnxruntime's MLAS and
ncnn (both through tools/peer_bench.py's worker, on the ONNX file and pnnx
conversion peer_bench uses, with the same seeded input). As in
arm_insn_count, a process with one inference is subtracted from one with
1 + EXTRA_ROUNDS, so loading and the first run drop out.

Instruction counts are a proxy for time on an AVX2 machine, not a measure
of it: one FMA instruction does 16 flops and a scalar add one, and memory
stalls do not show. qemu names only the main binary's functions, so the
per-function breakdown is MACE's (the peers run inside Python).

With --caches, every data access also goes through the plugin's model of
two cache levels of that geometry (an L1d and an L2 of BYTES:WAYS each,
64-byte lines, least recently used), and the report adds the data each
level misses per inference: what an engine's blocking leaves to the next
level on a core with those caches (Zen 3 has 32K:8,512K:8, Skylake client
32K:8,256K:4, Zen 5 48K:12,1M:16), not the stalls it costs.
qemu makes no access for a prefetch instruction and models no hardware
prefetcher, so data fetched ahead still counts as missed. The counts take
about 1.5 times as long.

A run of every model and engine writes docs/reports/x86_avx2_instructions.md;
a partial run writes build/x86_insn_count/x86_avx2_instructions.md unless
--report names another file. A full run takes about ten minutes.
"""
from __future__ import annotations

import argparse
import datetime
import re
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from mace_converter.progress import UserError
from mace_tools.peer_bench import options as peer_options
from mace_tools.peer_bench import prepare as peer_prepare
from mace_tools.peer_bench.main import worker_command
from mace_tools.qemu_insn_count import (BUILD, EXTRA_ROUNDS, LISTED_SYMBOLS, REPO, TOP_SYMBOLS,
                                        CacheCounts, CountError, build_mace_run, build_plugin,
                                        convert, count_caches_under_qemu, count_under_qemu,
                                        mace_run_command, model_macs, per_inference_functions,
                                        run_tool, short_name)
from mace_tools.qemu_insn_count import fail as shared_fail

FULL_REPORT = REPO / "docs" / "reports" / "x86_avx2_instructions.md"
WORK = BUILD / "x86_insn_count"
PARTIAL_REPORT = WORK / "x86_avx2_instructions.md"
CACHES_REPORT = WORK / "x86_avx2_caches.md"
LINE_BYTES = 64
DEFAULT_MODELS = ["mobilenet_v1", "mobilenet_v2", "squeezenet1_1", "shufflenet_v2", "resnet18"]
ENGINES = {"mace": "MACE", "ort": "ORT", "ncnn": "ncnn"}
DEFAULT_CPU = "Haswell"
# What mace_run prints (at MACE_CPP_MIN_VLOG_LEVEL=1) when it runs the AVX2
# kernels; the count fails without it.
MACE_AVX2 = "kernels avx2_fma"
# Peer processes: one thread, and none for numpy's BLAS either.
PEER_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def fail(message: str) -> NoReturn:
    shared_fail("x86_insn_count", message)


@dataclass
class Row:
    model: str
    engine: str
    macs: int
    per_inference: float  # instructions
    # The functions one inference spends most in, with their share of it.
    top: list[tuple[str, float]] = field(default_factory=list)
    # With a cache model: lines accessed, and lines L1d and L2 missed, per
    # inference.
    caches: tuple[float, float, float] | None = None


class Counter:
    """Counts one engine on one model: the plugin, the qemu CPU model, the
    host mace_run."""

    def __init__(self, cpu: str, plugin: Path, mace_run: Path, caches: str = "") -> None:
        self.qemu = ["qemu-x86_64", "-cpu", cpu]
        self.cpu = cpu
        self.plugin = plugin
        self.mace_run = mace_run
        self.caches = caches  # the plugin's cache options, or ""

    def mace_caches(self, graph: Path, data: Path, rounds: int) -> tuple[int, CacheCounts]:
        return count_caches_under_qemu(self.qemu,
                                       mace_run_command(self.mace_run, graph, data, rounds),
                                       self.plugin, self.caches, {"MACE_CPP_MIN_VLOG_LEVEL": "1"},
                                       f"{graph.name} on {self.cpu}", expect=MACE_AVX2)

    def peer_caches(self, prepared: peer_prepare.PreparedModel, engine: str,
                    rounds: int) -> tuple[int, CacheCounts]:
        command, env = self._peer_command(prepared, engine, rounds)
        return count_caches_under_qemu(self.qemu, command, self.plugin, self.caches, env,
                                       f"{engine} on {prepared.name} ({self.cpu})",
                                       cwd=prepared.directory)

    def mace(self, graph: Path, data: Path,
             rounds: int) -> tuple[int, list[tuple[str, int]]]:
        return count_under_qemu(self.qemu, mace_run_command(self.mace_run, graph, data, rounds),
                                self.plugin, {"MACE_CPP_MIN_VLOG_LEVEL": "1"}, LISTED_SYMBOLS,
                                f"{graph.name} on {self.cpu}", expect=MACE_AVX2)

    def peer(self, prepared: peer_prepare.PreparedModel, engine: str,
             rounds: int) -> tuple[int, list[tuple[str, int]]]:
        command, env = self._peer_command(prepared, engine, rounds)
        return count_under_qemu(self.qemu, command, self.plugin, env, 0,
                                f"{engine} on {prepared.name} ({self.cpu})",
                                cwd=prepared.directory)

    @staticmethod
    def _peer_command(prepared: peer_prepare.PreparedModel, engine: str,
                      rounds: int) -> tuple[list[str], dict[str, str]]:
        # The worker runs once before its `--rounds` timed runs.
        out = prepared.directory / "x86_insn_count" / f"{engine}_{rounds}"
        out.parent.mkdir(parents=True, exist_ok=True)
        command, env = worker_command(prepared, engine, 1, rounds - 1, out)
        env.update(PEER_ENVIRONMENT)
        return command, env


def prepare_peers(model: str, engines: list[str]) -> peer_prepare.PreparedModel:
    """peer_bench's ONNX file, input and ncnn conversion for a zoo model."""
    name = peer_options.ALIASES.get(model, model)
    options = peer_options.parse_args(["--models", name, "--engines", ",".join(engines),
                                       "--threads", "1", "--work-dir", str(WORK)])
    try:
        prepared = peer_prepare.prepare(name, options, lambda text: print(text, file=sys.stderr))
    except UserError as error:
        raise CountError(str(error)) from None
    if prepared.errors:
        raise CountError("; ".join(f"{e}: {text}" for e, text in prepared.errors.items()))
    return prepared


def plugin_caches(text: str) -> str:
    """--caches "32K:8,512K:8" (sizes in bytes, or with K or M) as the
    plugin's options "l1d=32768:8,l2=524288:8"; fails on anything else."""
    parts = text.split(",")
    levels = []
    for part in parts:
        match = re.fullmatch(r"(\d+)([KM]?):(\d+)", part.strip())
        if match is None:
            fail(f"bad --caches '{text}': two levels as SIZE:WAYS, e.g. 32K:8,512K:8")
        size = int(match.group(1)) << {"": 0, "K": 10, "M": 20}[match.group(2)]
        ways = int(match.group(3))
        sets = size // (ways * LINE_BYTES) if ways > 0 else 0
        if ways < 1 or ways > 64 or sets * ways * LINE_BYTES != size or sets & (sets - 1):
            fail(f"bad --caches level '{part}': 1 to 64 ways, and size / (ways x 64 B) a "
                 "power of two")
        levels.append(f"{size}:{ways}")
    if len(levels) != 2:
        fail(f"bad --caches '{text}': two levels, L1d and L2, e.g. 32K:8,512K:8")
    return f"l1d={levels[0]},l2={levels[1]}"


def megabytes(lines: float) -> str:
    return f"{lines * LINE_BYTES / 1e6:.1f}"


def cache_lines(rows: list[Row], caches: str) -> list[str]:
    """The report's table of the data each modelled cache level misses."""
    by_key = {(r.model, r.engine): r for r in rows}
    lines = ["", "## Data the caches miss", "",
             f"Per inference, through the plugin's model of an L1d and an L2 of `{caches}` "
             "(64-byte lines, least recently used, the L2 looked up on each L1d miss): the "
             "data the program's loads and stores touch, and what misses each level. "
             "Prefetch instructions make no access in qemu and no hardware prefetcher is "
             "modelled, so data fetched ahead counts as missed: this is what an engine's "
             "blocking leaves to the next level, not the stalls a core sees.", "",
             "| model | engine | MB touched | MB missing L1d | MB missing L2 | "
             "MACE / engine, L2 |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        if r.caches is None:
            continue
        mace = by_key.get((r.model, "mace"))
        ratio = ""
        if mace is not None and mace.caches is not None and r.engine != "mace" \
                and r.caches[2] > 0:
            ratio = f"{mace.caches[2] / r.caches[2]:.2f}x"
        lines.append(f"| {r.model} | {ENGINES[r.engine]} | {megabytes(r.caches[0])} | "
                     f"{megabytes(r.caches[1])} | {megabytes(r.caches[2])} | {ratio} |")
    return lines


def write_report(rows: list[Row], path: Path, command: str, seconds: float, cpu: str,
                 caches: str = "") -> None:
    lines = [
        "# x86-64 AVX2 instruction counts under qemu",
        "",
        "Generated by `tools/x86_insn_count.sh`; run it again rather than editing this file.",
        "",
        f"- Command: `{command}`",
        f"- Date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}; "
        f"the run took {seconds / 60:.1f} min",
        f"- CPU: `qemu-x86_64 -cpu {cpu}`, AVX2 and FMA without AVX-512. Each engine chooses "
        "its kernels from cpuid, which qemu answers for that model: MACE its `avx2_fma` "
        "kernels (checked from its log), onnxruntime's MLAS and ncnn their AVX2/FMA ones.",
        "- What is counted: guest instructions one inference executes on one thread, "
        "counted by a qemu-user plugin (`tools/qemu/insn_count.c`): the difference between a "
        f"process that runs one inference and one that runs {1 + EXTRA_ROUNDS}, divided by "
        f"{EXTRA_ROUNDS}. MACE is `mace_run`; ORT and ncnn run in `tools/peer_bench.py`'s "
        "worker on the same ONNX file (ncnn on its pnnx conversion, fp32) and seeded input.",
        "- Instruction counts are a proxy for time on an AVX2 machine, not a measure of it: "
        "an 8-lane FMA and a scalar add count one each, and memory stalls, issue width and "
        "latency do not show. An engine whose kernels are FMA-heavy executes fewer "
        "instructions for the same work.",
        "",
        "| model | engine | MMACs | M instructions / inference | MACs / instruction | "
        "MACE / engine |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    by_key = {(r.model, r.engine): r for r in rows}
    for r in rows:
        mace = by_key.get((r.model, "mace"))
        ratio = f"{mace.per_inference / r.per_inference:.2f}x" \
            if mace and r.engine != "mace" else ""
        lines.append(f"| {r.model} | {ENGINES[r.engine]} | {r.macs / 1e6:.0f} | "
                     f"{r.per_inference / 1e6:.1f} | {r.macs / r.per_inference:.2f} | {ratio} |")
    if caches:
        lines += cache_lines(rows, caches)
    profiled = [r for r in rows if r.top]
    if profiled:
        lines += ["", "## Where MACE's instructions go", "",
                  f"The {TOP_SYMBOLS} functions that execute the most instructions in one "
                  "inference, with their share of it (per function, the same difference over "
                  f"{EXTRA_ROUNDS} as the totals). Inlined code counts toward its caller; "
                  "`[unknown]` is code without a symbol (libc's memcpy and memset, the loader). "
                  "The peers' code is in shared libraries, which qemu does not name.", ""]
        for r in profiled:
            shares = ", ".join(f"`{name}` {share:.1f}%" for name, share in r.top)
            lines.append(f"- {r.model}: {shares}")
    lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))


def default_report(models: list[str], engines: list[str], cpu: str, caches: str = "") -> Path:
    """The checked-in report for a full run on the default CPU model; a
    partial run, or one with a cache model, writes under build/."""
    if caches:
        return CACHES_REPORT
    full = set(models) == set(DEFAULT_MODELS) and set(engines) == set(ENGINES) \
        and cpu == DEFAULT_CPU
    return FULL_REPORT if full else PARTIAL_REPORT


def names(text: str, known: list[str], what: str) -> list[str]:
    chosen = list(dict.fromkeys(name for name in text.split(",") if name))
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        fail(f"unknown {what} {', '.join(unknown) or '(none given)'} (one of {', '.join(known)})")
    return chosen


def count_caches(counter: Counter, model: str, engine: str, macs: int, graph: Path, data: Path,
                 prepared: peer_prepare.PreparedModel | None) -> Row:
    """One engine's instructions and cache counts per inference on a model."""
    def measure(rounds: int) -> tuple[int, CacheCounts]:
        if engine == "mace":
            return counter.mace_caches(graph, data, rounds)
        assert prepared is not None
        return counter.peer_caches(prepared, engine, rounds)
    one, caches_one = measure(1)
    more, caches_more = measure(1 + EXTRA_ROUNDS)
    per = (more - one) / EXTRA_ROUNDS
    caches = tuple((b - a) / EXTRA_ROUNDS for a, b in zip(caches_one, caches_more))
    print(f"{model:16s} {engine:6s} {per / 1e6:10.1f} M instructions per inference, "
          f"{megabytes(caches[1])} MB missing L1d, {megabytes(caches[2])} MB missing L2",
          flush=True)
    return Row(model, engine, macs, per, caches=(caches[0], caches[1], caches[2]))


def main(argv: list[str] | None = None) -> int:
    return run_tool("x86_insn_count", count_and_report, argv)


def count_and_report(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="x86_insn_count.sh", description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="comma-separated zoo models (default: %(default)s)")
    parser.add_argument("--engines", default=",".join(ENGINES),
                        help="comma-separated engines (default: %(default)s)")
    parser.add_argument("--cpu", default=DEFAULT_CPU,
                        help="qemu's x86 CPU model: one with AVX2 and FMA and without AVX-512, "
                        "e.g. Haswell or EPYC-Rome (default: %(default)s)")
    parser.add_argument("--caches", default="",
                        help="also model an L1d and an L2 of this geometry, SIZE:WAYS each "
                        "(e.g. 32K:8,512K:8, a Zen 3 core), and report the data they miss; "
                        "about 1.5 times as long")
    parser.add_argument("--report", default=None,
                        help=f"the markdown report (default: {FULL_REPORT.relative_to(REPO)} "
                        "for a run of every model and engine on the default CPU, else "
                        f"{PARTIAL_REPORT.relative_to(REPO)})")
    args = parser.parse_args(argv)
    models = names(args.models, DEFAULT_MODELS, "model")
    engines = names(args.engines, list(ENGINES), "engine")
    if shutil.which("qemu-x86_64") is None:
        fail("no qemu-x86_64 (Debian package qemu-user)")
    caches = plugin_caches(args.caches) if args.caches else ""
    report = Path(args.report) if args.report \
        else default_report(models, engines, args.cpu, args.caches)
    start = time.monotonic()
    host_run = build_mace_run([])
    counter = Counter(args.cpu, build_plugin(), host_run, caches)
    rows: list[Row] = []
    for model in models:
        graph, data = convert(model)
        macs = model_macs(host_run, graph, data)
        peers = [engine for engine in engines if engine != "mace"]
        prepared = prepare_peers(model, peers) if peers else None
        for engine in engines:
            if caches:
                rows.append(count_caches(counter, model, engine, macs, graph, data, prepared))
                continue
            if engine == "mace":
                def measure(rounds: int) -> tuple[int, list[tuple[str, int]]]:
                    return counter.mace(graph, data, rounds)
            else:
                def measure(rounds: int) -> tuple[int, list[tuple[str, int]]]:
                    return counter.peer(prepared, engine, rounds)
            one, listed_one = measure(1)
            more, listed_more = measure(1 + EXTRA_ROUNDS)
            per = (more - one) / EXTRA_ROUNDS
            top = per_inference_functions(listed_one, listed_more, EXTRA_ROUNDS, per)
            rows.append(Row(model, engine, macs, per,
                            [(short_name(name), share) for name, share in top]))
            print(f"{model:16s} {engine:6s} {per / 1e6:10.1f} M instructions per inference, "
                  f"{macs / per:.2f} MACs per instruction", flush=True)
    command = "tools/x86_insn_count.sh " + shlex.join(argv if argv is not None else sys.argv[1:])
    write_report(rows, report, command.strip(), time.monotonic() - start, args.cpu, args.caches)
    print(f"report: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
