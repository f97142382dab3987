"""Counts the ARM instructions one inference executes, under qemu-user, as a
proxy for what the NEON kernels cost on a phone (qemu's timings mean nothing,
but what it executes is what a core would).

    tools/arm_insn_count.sh [--models mobilenet_v2,squeezenet1_1]
                            [--abis arm64-v8a,armeabi-v7a] [--report PATH]
    tools/arm_insn_count.sh --models bert_torch --abis arm64-v8a

The transformer encoders (--models transformers, or by name) count MACE's
kernel sets; ncnn's driver feeds one float input, so models with token ids
(BERT) get no ncnn rows and the report says why.

A run of every model, ABI and kernel set writes docs/reports/arm_instructions.md;
a partial run writes build/arm_insn_count/arm_instructions.md unless --report
names another file.

For each model and ABI, mace_run (built with --config=aarch64 or armhf) runs
the converted model on one thread under qemu with a small TCG plugin
(tools/qemu/insn_count.c) that counts executed guest instructions, once with
the NEON kernels and once with MACE_CPU_KERNELS=ref (the plain C++
reference kernels the fast ones are tested against). Each configuration runs
with --round=1 and --round=1+EXTRA; the difference over EXTRA is one
inference, so model loading and the first run drop out. MACs come from the
host mace_run's --benchmark table.

The ncnn kernel sets run ncnn (the version tools/requirements-bench.txt
pins, cross-built from its PyPI source by mace_tools.ncnn_arm) on the same
zoo ONNX files converted by pnnx, through tools/ncnn/ncnn_infer.cc, with the
same plugin, qemu CPU and rounds: `ncnn_fp32` with every fp16/bf16 option off,
`ncnn_default` with ncnn's defaults: fp16 storage and arithmetic on arm64
(ARMv8.2 FP16); on armv7, which has no fp16 arithmetic, fp16 storage in the
layers that support it there (computed in fp32 through VFPv4's conversions).
The first run builds ncnn for each ABI (only the layers the zoo models use).

The `litert` kernel set (arm64-v8a only) runs LiteRT, the version
tools/requirements.txt pins, with its default XNNPACK delegate on one thread,
on the float32 .tflite tools/peer_bench.py converts, in an arm64 Python
(mace_tools.litert_arm makes it under build/litert_arm on first use) running
tools/qemu/litert_invoke.py, which invokes the interpreter 1 or 1+EXTRA times:
the difference drops Python's start-up, the imports, the delegate's set-up
and the first invoke, as for mace_run.

It takes several minutes: the reference kernels are slow under emulation.
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

from mace_converter import fetch
from mace_converter.config import load_config
from mace_converter.progress import UserError
from mace_tools import litert_arm, ncnn_arm
from mace_tools.qemu_insn_count import (BUILD, EXTRA_ROUNDS, LISTED_SYMBOLS, REPO, TOP_SYMBOLS,
                                        build_mace_run, build_plugin, convert,
                                        count_under_qemu, mace_run_command, model_macs,
                                        parse_count, parse_symbols, per_inference_functions,
                                        run_tool, short_name)
from mace_tools.qemu_insn_count import fail as shared_fail

FULL_REPORT = REPO / "docs" / "reports" / "arm_instructions.md"
PARTIAL_REPORT = BUILD / "arm_insn_count" / "arm_instructions.md"
DEFAULT_MODELS = ["mobilenet_v1", "mobilenet_v2", "squeezenet1_1", "shufflenet_v2", "resnet18"]
# The transformer encoders (models/<name>.yml); counted when asked for by
# name or as the group `transformers`. mace_run feeds their integer inputs
# itself (token ids and masks, mace/tools/random_inputs.h).
TRANSFORMER_MODELS = ["bert_torch", "bert_tf", "vit_tiny", "whisper_tiny_encoder"]
MODEL_GROUPS = {"transformers": TRANSFORMER_MODELS}
ABIS = {
    # ABI: (Bazel config, qemu, cross sysroot)
    "arm64-v8a": ("aarch64", "qemu-aarch64", "/usr/aarch64-linux-gnu"),
    "armeabi-v7a": ("armhf", "qemu-arm", "/usr/arm-linux-gnueabihf"),
}
# Environment each kernel set runs with: the NEON kernels as shipped (plain
# layout), the NEON kernels with the channel-blocked layout asked for, the
# half-precision mode (ARMv8.2 FP16; qemu's default CPU has it), and the
# reference kernels.
KERNELS = {
    "neon": {},
    "neon_blocked": {"MACE_CPU_BLOCKED_LAYOUT": "1"},
    "neon_fp16": {},
    "ref": {"MACE_CPU_KERNELS": "ref"},
}
# mace_run flags a kernel set adds.
KERNEL_FLAGS = {"neon_fp16": ["--cpu_precision=fp16"]}
# The host Python's variables, which must not reach a guest Python.
PYTHON_ENVIRONMENT = ("PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED")
# The kernel set that runs LiteRT (mace_tools.litert_arm).
LITERT = "litert"
# Kernel sets an ABI cannot run, and why: armv7 has no half-precision
# arithmetic, so mace_run's fp16 mode runs fp32 there and would only count
# `neon` again; LiteRT's Python needs an arm64 Python.
SKIPPED = {("armeabi-v7a", "neon_fp16"): "it has no half-precision arithmetic",
           ("armeabi-v7a", LITERT): "LiteRT runs in an arm64 Python only"}
# ncnn kernel set -> ncnn_infer's mode.
NCNN_KERNELS = {"ncnn_fp32": "fp32", "ncnn_default": "default"}
ALL_KERNELS = [*KERNELS, *NCNN_KERNELS, LITERT]
# Kernel sets whose runs also list the functions they spend the most in
# (LiteRT's code is in shared libraries, which the plugin cannot name).
PROFILED = ("neon", "neon_fp16", "ncnn_fp32", "ncnn_default")


def log(message: str) -> None:
    print(f"arm_insn_count: {message}", file=sys.stderr, flush=True)


def fail(message: str) -> NoReturn:
    shared_fail("arm_insn_count", message)


def count(abi: str, binary: Path, plugin: Path, graph: Path, data: Path, kernels: dict[str, str],
          rounds: int, symbols: int = 0,
          flags: list[str] | None = None) -> tuple[int, list[tuple[str, int]]]:
    """Instructions the mace_run process executed, and its top `symbols` functions."""
    return count_command(abi, mace_run_command(binary, graph, data, rounds, flags), plugin,
                         kernels, symbols, graph.name)


def count_command(abi: str, command: list[str], plugin: Path, kernels: dict[str, str],
                  symbols: int, what: str, sysroot: Path | None = None,
                  cpu: str = "") -> tuple[int, list[tuple[str, int]]]:
    """Instructions an ARM process executed under qemu, and its top `symbols`
    functions; `sysroot` replaces the ABI's cross sysroot, `cpu` qemu's
    default CPU model."""
    _, qemu, cross_root = ABIS[abi]
    root = str(sysroot or cross_root)
    return count_under_qemu([qemu, *(["-cpu", cpu] if cpu else []), "-L", root, "-E",
                             f"LD_LIBRARY_PATH={root}/lib"],
                            command, plugin, kernels, symbols, f"{what} on {abi}",
                            unset=PYTHON_ENVIRONMENT)


class NcnnRunner:
    """ncnn's drivers per ABI and converted models, built on first use."""

    def __init__(self) -> None:
        self.tree: Path | None = None
        self.drivers: dict[str, Path] = {}

    def driver(self, abi: str) -> Path:
        if abi not in self.drivers:
            try:
                if self.tree is None:
                    self.tree = ncnn_arm.source()
                print(f"arm_insn_count: building ncnn for {abi} (slow the first time; log: "
                      f"build/ncnn_arm/{ncnn_arm.TOOLCHAINS[abi][0]}/build.log)",
                      file=sys.stderr, flush=True)
                library = ncnn_arm.build_library(abi, self.tree)
                self.drivers[abi] = ncnn_arm.build_driver(library)
            except ncnn_arm.NcnnError as error:
                fail(str(error))
        return self.drivers[abi]

    @staticmethod
    def unsupported(name: str) -> str:
        """Why the ncnn driver cannot run the zoo model ('' when it can): it
        feeds one float input."""
        config = load_config(REPO / "models" / f"{name}.yml")
        model = next(iter(config.models.values()))
        if len(model.inputs) != 1:
            return (f"the ncnn driver (tools/ncnn/ncnn_infer.cc) feeds one input; {name} has "
                    f"{len(model.inputs)} ({', '.join(spec.name for spec in model.inputs)})")
        data_type = model.inputs[0].data_type or "float32"
        if data_type != "float32":
            return (f"the ncnn driver feeds a float input; {name}'s {model.inputs[0].name} "
                    f"is {data_type}")
        return ""

    @staticmethod
    def model(name: str) -> tuple[Path, Path, list[int]]:
        """The zoo model's ncnn files and input shape."""
        config = load_config(REPO / "models" / f"{name}.yml")
        model = next(iter(config.models.values()))
        problem = NcnnRunner.unsupported(name)
        if problem:
            fail(f"{name}: {problem}")
        try:
            onnx, _ = fetch.model_files(config, model)
            shape = list(model.inputs[0].shape)
            param, weights = ncnn_arm.convert(name, onnx, shape, model.inputs[0].value_range)
        except (UserError, ncnn_arm.NcnnError) as error:
            fail(str(error))
        return param, weights, shape


def millions(row: Row | None) -> str:
    """A row's count per inference in millions, or '' for no row."""
    return f"{row.per_inference / 1e6:.1f}" if row else ""


def ratio(mine: Row | None, other: Row | None) -> str:
    """mine's count over other's, or '' when either is missing."""
    return f"{mine.per_inference / other.per_inference:.2f}x" if mine and other else ""


def table_row(model: str, abi: str, cells: list[str]) -> str:
    return f"| {model} | {abi} | " + " | ".join(cells) + " |"


def section(title: str, intro: str, columns: list[str], lines: list[str]) -> list[str]:
    """Markdown: a section of one paragraph and a table whose rows (`lines`)
    start with the model and ABI, then `columns` of numbers; nothing
    without rows."""
    if not lines:
        return []
    return ["", f"## {title}", "", intro, "",
            "| " + " | ".join(["model", "ABI", *columns]) + " |",
            "| --- | --- |" + " ---: |" * len(columns), *lines]


def compare_litert(rows: list[Row]) -> list[str]:
    """Markdown: MACE's NEON count over LiteRT's per model and ABI, beside
    MACE's over ncnn fp32."""
    by_key = {(r.model, r.abi, r.kernels): r for r in rows}
    lines = []
    for r in rows:
        if r.kernels != LITERT:
            continue
        mace = by_key.get((r.model, r.abi, "neon"))
        fp32 = by_key.get((r.model, r.abi, "ncnn_fp32"))
        lines.append(table_row(r.model, r.abi, [millions(mace), millions(r), ratio(mace, r),
                                                millions(fp32), ratio(mace, fp32)]))
    return section("MACE against LiteRT",
                   "M instructions per inference, counted the same way for all three, in fp32. "
                   "`MACE / LiteRT` below 1 means MACE executes fewer instructions.",
                   ["MACE neon", "LiteRT", "MACE / LiteRT", "ncnn fp32", "MACE / ncnn fp32"],
                   lines)


def compare_ncnn(rows: list[Row]) -> list[str]:
    """Markdown: MACE's NEON count over ncnn's per model and ABI, and MACE's
    fp16 mode over ncnn's defaults (which compute in fp16) where it was counted."""
    by_key = {(r.model, r.abi, r.kernels): r for r in rows}
    pairs = [(r.model, r.abi) for r in rows if r.kernels == "neon"]
    pairs += [(r.model, r.abi) for r in rows
              if r.kernels == "neon_fp16" and (r.model, r.abi) not in pairs]
    lines = []
    for model, abi in pairs:
        mace = by_key.get((model, abi, "neon"))
        fp32 = by_key.get((model, abi, "ncnn_fp32"))
        default = by_key.get((model, abi, "ncnn_default"))
        fp16 = by_key.get((model, abi, "neon_fp16"))
        if fp32 is None and default is None:
            continue
        lines.append(table_row(model, abi, [millions(mace), millions(fp32), millions(default),
                                            ratio(mace, fp32), ratio(mace, default),
                                            millions(fp16), ratio(fp16, default)]))
    return section("MACE against ncnn",
                   "M instructions per inference, counted the same way for both. `MACE / ncnn` "
                   "below 1 means MACE executes fewer instructions.",
                   ["MACE neon", "ncnn fp32", "ncnn defaults", "MACE / ncnn fp32",
                    "MACE / ncnn defaults", "MACE neon_fp16", "MACE fp16 / ncnn defaults"],
                   lines)


@dataclass
class Row:
    model: str
    abi: str
    kernels: str
    macs: int
    per_inference: float  # instructions
    # The functions one inference spends most in, with their share of it.
    top: list[tuple[str, float]] = field(default_factory=list)


# "| mobilenet_v1 | arm64-v8a | neon | 569 | 189.7 | 3.00 |  |" in a report's first table.
REPORT_ROW = re.compile(r"^\| (\S+) \| (\S+) \| (\S+) \| \d+ \| ([\d.]+) \| ([\d.]+) \|.*\|$",
                        re.MULTILINE)
# "- mobilenet_v1, arm64-v8a, neon: `AsmTile` 83.0%, `[unknown]` 1.7%"
REPORT_TOP = re.compile(r"^- ([^,]+), ([^,]+), (\S+): (.*)$", re.MULTILINE)
REPORT_SHARE = re.compile(r"`([^`]+)` ([\d.]+)%")
# Sections write_report writes; a report's other sections are notes kept as they are.
GENERATED_SECTIONS = ("MACE against ncnn", "MACE against LiteRT", "Where the instructions go",
                      "Not counted")
KERNEL_ORDER = ["neon", "neon_blocked", "ref", "ncnn_fp32", "ncnn_default", "neon_fp16", LITERT]


def read_report(path: Path) -> tuple[list[Row], list[str]]:
    """The rows of a report this tool wrote (counts as printed: millions to
    one decimal), and its sections the tool does not write, as text."""
    text = path.read_text()
    body, _, _ = text.partition("\n## ")
    # MACs from the two printed numbers, so that both print again as they were.
    rows = [Row(m.group(1), m.group(2), m.group(3), round(float(m.group(5)) * float(m.group(4)) * 1e6),
                float(m.group(4)) * 1e6)
            for m in REPORT_ROW.finditer(body) if m.group(3) in ALL_KERNELS]
    by_key = {(r.model, r.abi, r.kernels): r for r in rows}
    for m in REPORT_TOP.finditer(text):
        row = by_key.get((m.group(1), m.group(2), m.group(3)))
        if row is not None:
            row.top = [(s.group(1), float(s.group(2))) for s in REPORT_SHARE.finditer(m.group(4))]
    notes = [section.rstrip() for section in text.split("\n## ")[1:]
             if not section.startswith(GENERATED_SECTIONS)]
    return rows, ["## " + section for section in notes]


def merge_rows(counted: list[Row], kept: list[Row]) -> tuple[list[Row], list[Row]]:
    """Every row counted now, and the kept rows this run did not count, by
    model (in first-seen order) and kernel set; and those kept rows."""
    counted_keys = {(r.model, r.abi, r.kernels) for r in counted}
    old = [r for r in kept if (r.model, r.abi, r.kernels) not in counted_keys]
    models: list[str] = []
    for r in [*kept, *counted]:
        if r.model not in models:
            models.append(r.model)
    rows = sorted([*old, *counted], key=lambda r: (models.index(r.model), r.abi,
                                                   KERNEL_ORDER.index(r.kernels)))
    return rows, old


def write_report(rows: list[Row], path: Path, command: str, seconds: float,
                 kept: list[Row] | None = None, notes: list[str] | None = None,
                 kept_from: str | list[str] = "") -> None:
    sources = [kept_from] if isinstance(kept_from, str) else kept_from
    lines = [
        "# ARM instruction counts under qemu",
        "",
        "Generated by `tools/arm_insn_count.sh`; run it again rather than editing this file.",
        "",
        f"- Command: `{command}`",
        f"- Date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}; "
        f"the run took {seconds / 60:.1f} min",
        *([f"- Rows kept from {', '.join(f'`{s}`' for s in sources)}, counted by an earlier "
           "run and not by this "
           "command: " + ", ".join(f"{r.model} {r.abi} {r.kernels}" for r in kept)]
          if kept else []),
        "- What is counted: guest instructions one inference executes on one thread, "
        "counted by a qemu-user plugin (`tools/qemu/insn_count.c`): the difference "
        f"between `mace_run --round=1` and `--round={1 + EXTRA_ROUNDS}`, divided by "
        f"{EXTRA_ROUNDS}. qemu's default CPU model; no timing is taken.",
        "- `ref` is the same binary with `MACE_CPU_KERNELS=ref`: the plain C++ reference "
        "kernels, compiled for the same ABI (the compiler may auto-vectorize them).",
        "- `neon_blocked` is the same binary with `MACE_CPU_BLOCKED_LAYOUT=1`: the NEON "
        "kernels with runs of ops in the channel-blocked layout, which the NEON build does "
        "not use by default.",
        "- `neon_fp16` is the same binary with `mace_run --cpu_precision=fp16` "
        "(CPUPrecision::FP16): Conv2D, FullyConnected and 3x3 depthwise in ARMv8.2 half "
        "precision (qemu's default CPU has FP16 arithmetic), the other ops in fp32.",
        "- `ncnn_fp32` and `ncnn_default` run ncnn (the version `tools/requirements-bench.txt` "
        "pins, cross-built from its source) on the same ONNX models converted by pnnx, with "
        "every fp16/bf16 option off and with ncnn's defaults. On arm64-v8a the defaults "
        "store and compute in fp16 (ARMv8.2). On armeabi-v7a (built like MACE's armhf: "
        "`-march=armv7-a -mfpu=neon -mfloat-abi=hard`, plus ncnn's VFPv4 variants, chosen at "
        "run time) there is no fp16 arithmetic: the defaults only keep InnerProduct's "
        "weights in fp16 and compute in fp32; the rest runs as in `ncnn_fp32`.",
        "- `litert` (arm64-v8a) runs LiteRT (the ai-edge-litert version "
        "`tools/requirements.txt` pins, its aarch64 wheel) with its default XNNPACK delegate "
        "on one thread, on the float32 .tflite `tools/peer_bench.py` converts with onnx2tf, "
        "in Debian's arm64 Python 3.11: a script that invokes the interpreter once and "
        f"{1 + EXTRA_ROUNDS} times, counted like `mace_run`. qemu's CPU is "
        f"`-cpu {litert_arm.QEMU_CPU}`: qemu's default CPU has SME, with which XNNPACK "
        "runs its matrix products as SME outer products (MobileNet v2: 39.0 M instructions "
        "instead of 113.5 M); the other kernel sets use no SME, and few phones have it.",
        "- Instruction counts are a proxy for phone cost, not a measure of it: they ignore "
        "memory stalls, issue width and the different cost of a NEON and a scalar "
        "instruction.",
        "",
        "| model | ABI | kernels | MMACs | M instructions / inference | MACs / instruction | "
        "ref / neon |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    by_key = {(r.model, r.abi, r.kernels): r for r in rows}
    for r in rows:
        ref = by_key.get((r.model, r.abi, "ref"))
        ratio = f"{ref.per_inference / r.per_inference:.1f}x" if r.kernels == "neon" and ref \
            else ""
        lines.append(f"| {r.model} | {r.abi} | {r.kernels} | {r.macs / 1e6:.0f} | "
                     f"{r.per_inference / 1e6:.1f} | {r.macs / r.per_inference:.2f} | {ratio} |")
    lines += compare_ncnn(rows)
    lines += compare_litert(rows)
    profiled = [r for r in rows if r.top]
    if profiled:
        lines += ["", "## Where the instructions go", "",
                  f"The {TOP_SYMBOLS} functions that execute the most instructions in one "
                  "inference, with their share of it: per function, as for the totals, the "
                  "difference between the two processes (from the plugin's `symbols=` option, "
                  f"top {LISTED_SYMBOLS} per process) over {EXTRA_ROUNDS}. Inlined code counts "
                  "toward its caller; `[unknown]` is code without a symbol (libc's memcpy and "
                  "memset, libgcc's 64-bit division on armv7, the loader, and "
                  "ncnn's OpenMP runtime).",
                  ""]
        for r in profiled:
            shares = ", ".join(f"`{name}` {share:.1f}%" for name, share in r.top)
            lines.append(f"- {r.model}, {r.abi}, {r.kernels}: {shares}")
    for note in notes or []:
        lines += ["", note]
    lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))


def default_report(models: str, abis: str, kernels: str) -> Path:
    """The checked-in report for a full run; a partial run writes under build/
    so trying one model never overwrites the full tables."""
    full = (set(models.split(",")) == set(DEFAULT_MODELS) and set(abis.split(",")) == set(ABIS)
            and set(kernels.split(",")) == set(ALL_KERNELS))
    return FULL_REPORT if full else PARTIAL_REPORT


def model_names(text: str) -> list[str]:
    """--models: zoo models (each with a models/<name>.yml) and group names,
    in order, without repeats."""
    names = [member for name in text.split(",") if name
             for member in MODEL_GROUPS.get(name, [name])]
    unknown = [name for name in names if not (REPO / "models" / f"{name}.yml").is_file()]
    if unknown:
        fail(f"unknown model {', '.join(unknown)}: no models/<name>.yml (groups: "
             f"{', '.join(MODEL_GROUPS)})")
    return list(dict.fromkeys(names))


def main(argv: list[str] | None = None) -> int:
    return run_tool("arm_insn_count", count_and_report, argv)


def count_and_report(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="arm_insn_count.sh", description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="comma-separated zoo models, or `transformers` for "
                        f"{', '.join(TRANSFORMER_MODELS)} (default: %(default)s)")
    parser.add_argument("--abis", default=",".join(ABIS),
                        help="comma-separated ABIs (default: %(default)s)")
    parser.add_argument("--kernels", default=",".join(ALL_KERNELS),
                        help="comma-separated kernel sets (default: %(default)s; ref takes "
                        "most of the time, and the first ncnn run builds ncnn)")
    parser.add_argument("--report", default=None,
                        help=f"the markdown report (default: {FULL_REPORT.relative_to(REPO)} "
                        "for a run of every model, ABI and kernel set, else "
                        f"{PARTIAL_REPORT.relative_to(REPO)})")
    parser.add_argument("--keep-rows-from", action="append", default=[],
                        help="a report this tool wrote: its rows for what this run does not "
                        "count (other models, ABIs or kernel sets) and its sections the tool "
                        "does not write go into the new report. Give it more than once to "
                        "merge reports (a later one's row wins); with --models '' nothing is "
                        "counted and the reports are only merged")
    args = parser.parse_args(argv)
    kept_rows: list[Row] = []
    notes: list[str] = []
    for report in args.keep_rows_from:
        if not Path(report).is_file():
            fail(f"no report {report}")
        earlier, sections = read_report(Path(report))
        kept_rows, _ = merge_rows(earlier, kept_rows)
        notes += [section for section in sections if section not in notes]
    if args.report is None:
        args.report = str(default_report(args.models, args.abis, args.kernels))
    kernel_sets = [k for k in args.kernels.split(",") if k]
    for kernels in kernel_sets:
        if kernels not in ALL_KERNELS:
            fail(f"unknown kernel set '{kernels}' (one of {', '.join(ALL_KERNELS)})")
    models = model_names(args.models)
    abis = [a for a in args.abis.split(",") if a]
    for abi in abis:
        if abi not in ABIS:
            fail(f"unknown ABI '{abi}' (one of {', '.join(ABIS)})")
    if "armeabi-v7a" in abis and shutil.which("arm-linux-gnueabihf-g++") is None:
        # bootstrap.sh installs the armhf toolchain on a best-effort basis.
        print("arm_insn_count: no armhf toolchain (g++-arm-linux-gnueabihf): skipping "
              "armeabi-v7a", file=sys.stderr)
        abis.remove("armeabi-v7a")
    start = time.monotonic()
    if models:
        plugin = build_plugin()
        host_run = build_mace_run([])
        binaries = {abi: build_mace_run([f"--config={ABIS[abi][0]}"]) for abi in abis
                    if any(k in KERNELS for k in kernel_sets)}
    ncnn = NcnnRunner()
    rows: list[Row] = []
    not_counted: list[str] = []
    litert_root = None
    if models and LITERT in kernel_sets and "arm64-v8a" in abis:
        try:
            litert_root = litert_arm.sysroot(log)
        except litert_arm.LiteRTError as error:
            print(f"arm_insn_count: skipping {LITERT}: {error}", file=sys.stderr)
            not_counted.append(f"- {LITERT}: {error}")
    for model in models:
        graph, data = convert(model)
        macs = model_macs(host_run, graph, data)
        wanted_ncnn = [k for k in kernel_sets if k in NCNN_KERNELS]
        no_ncnn = NcnnRunner.unsupported(model) if wanted_ncnn else ""
        if no_ncnn:
            print(f"arm_insn_count: skipping {', '.join(wanted_ncnn)} for {model}: {no_ncnn}",
                  file=sys.stderr)
            not_counted.append(f"- {model}, {' and '.join(wanted_ncnn)}: {no_ncnn}.")
        ncnn_model = ncnn.model(model) if wanted_ncnn and not no_ncnn else None
        litert_model = None
        if litert_root is not None:
            try:
                litert_model = litert_arm.model(model, log)
            except litert_arm.LiteRTError as error:
                print(f"arm_insn_count: skipping {LITERT} for {model}: {error}",
                      file=sys.stderr)
                not_counted.append(f"- {model}, {LITERT}: {error}")
        for abi in abis:
            for kernels in kernel_sets:
                if (abi, kernels) in SKIPPED:
                    print(f"arm_insn_count: skipping {kernels} on {abi}: "
                          f"{SKIPPED[(abi, kernels)]}", file=sys.stderr)
                    continue
                if kernels in NCNN_KERNELS and ncnn_model is None:
                    continue
                if kernels == LITERT and litert_model is None:
                    continue
                symbols = LISTED_SYMBOLS if kernels in PROFILED else 0
                if kernels in NCNN_KERNELS:
                    param, weights, shape = ncnn_model
                    driver = ncnn.driver(abi)

                    def measure(rounds: int) -> tuple[int, list[tuple[str, int]]]:
                        arguments = ncnn_arm.driver_arguments(param, weights, shape, rounds,
                                                              NCNN_KERNELS[kernels])
                        return count_command(abi, [str(driver), *arguments], plugin,
                                             {"OMP_NUM_THREADS": "1"}, symbols, param.name)
                elif kernels == LITERT:
                    def measure(rounds: int) -> tuple[int, list[tuple[str, int]]]:
                        command = litert_arm.guest_command(litert_root, litert_model.tflite,
                                                           litert_model.feeds, rounds)
                        return count_command(abi, command, plugin, litert_arm.GUEST_ENV,
                                             symbols, litert_model.tflite.name, litert_root,
                                             litert_arm.QEMU_CPU)
                else:
                    def measure(rounds: int) -> tuple[int, list[tuple[str, int]]]:
                        return count(abi, binaries[abi], plugin, graph, data, KERNELS[kernels],
                                     rounds, symbols, KERNEL_FLAGS.get(kernels))
                one, listed_one = measure(1)
                more, listed_more = measure(1 + EXTRA_ROUNDS)
                per = (more - one) / EXTRA_ROUNDS
                top = per_inference_functions(listed_one, listed_more, EXTRA_ROUNDS, per)
                row = Row(model, abi, kernels, macs, per,
                          [(short_name(name), share) for name, share in top])
                rows.append(row)
                print(f"{model:16s} {abi:12s} {kernels:12s} {per / 1e6:10.1f} M instructions "
                      f"per inference, {macs / per:.2f} MACs per instruction", flush=True)
    command = "tools/arm_insn_count.sh " + shlex.join(argv if argv is not None else sys.argv[1:])
    rows, kept = merge_rows(rows, kept_rows)
    if not_counted:
        notes = ["## Not counted\n\n" + "\n".join(not_counted), *notes]
    write_report(rows, Path(args.report), command.strip(), time.monotonic() - start, kept, notes,
                 args.keep_rows_from)
    print(f"report: {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
