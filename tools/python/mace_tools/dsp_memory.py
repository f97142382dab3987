"""Host arena of the Hexagon engine against the CPU engine's, for models of
the zoo converted with runtime: dsp (uint8, quantized on random calibration
inputs): the CPU_BUFFER arena that `mace_run --memory_report` shows, and how
many activations it places.

    PYTHONPATH=tools/python .venv/bin/python -m mace_tools.dsp_memory [--size 224]

The Hexagon engine keeps on the host only what its CPU ops read and write,
what crosses between a DSP graph and the CPU, and the app's inputs and
outputs; a tensor that lives only inside a DSP graph is in the DSP's own
arena. --mace_run counts another build of mace_run (such as one from before
that change) on the same converted models.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from mace_tools.dsp_insn_count import REPO, convert, run

WORK = REPO / "build" / "dsp_memory"
MODELS = ("shufflenet_v2_x1_0", "mobilenet_v2")
ARENA = re.compile(r"CPU_BUFFER arena :\s+(\d+) bytes")
# A placed tensor's row: name, memory type, offset (-1 for an alias).
TENSOR_ROW = re.compile(r"^\s+\S+\s+CPU_BUFFER\s+(\d+)\s+\d+", re.MULTILINE)


def parse_report(text: str) -> tuple[int, int]:
    """From mace_run --memory_report: the CPU_BUFFER arena bytes and the
    tensors placed in it (aliases, at offset -1, left out)."""
    found = ARENA.search(text)
    if found is None:
        sys.exit(f"dsp_memory: no arena line in mace_run's report:\n{text[-2000:]}")
    return int(found.group(1)), len(TENSOR_ROW.findall(text))


def arena(mace_run: Path, graph: Path, data: Path, size: int, device: str,
          env: dict) -> tuple[int, int]:
    return parse_report(run([str(mace_run), f"--model_file={graph}",
                             f"--model_data_file={data}", "--input_node=input",
                             f"--input_shape=1,3,{size},{size}", "--output_node=output",
                             "--output_shape=1,1000", f"--device={device}", "--round=1",
                             "--memory_report"], env=env))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--mace_run", type=Path, help="this mace_run instead of the built one")
    args = parser.parse_args(argv)
    run(["bazel", "build", "--color=no", "--curses=no", "//mace/dsp:dsp_runtime"] +
        ([] if args.mace_run else ["//mace/tools:mace_run"]))
    mace_run = (args.mace_run.resolve() if args.mace_run else
                REPO / "bazel-bin" / "mace" / "tools" / "mace_run")
    env = dict(os.environ, MACE_DSP_RUNTIME=str(REPO / "bazel-bin" / "mace" / "dsp" /
                                                 "dsp_runtime.elf"))
    env.setdefault("MACE_DSP_TIMEOUT_MS", "900000")
    print(f"| model ({args.size}x{args.size}) | CPU engine arena | tensors | "
          "Hexagon engine host arena | tensors | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in MODELS:
        graph, data = convert(name, args.size, WORK)
        cpu, cpu_tensors = arena(mace_run, graph, data, args.size, "CPU", env)
        dsp, dsp_tensors = arena(mace_run, graph, data, args.size, "HEXAGON", env)
        print(f"| {name} | {cpu:,} | {cpu_tensors} | {dsp:,} | {dsp_tensors} | "
              f"{dsp / cpu:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
