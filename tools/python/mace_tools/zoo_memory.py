"""Plans every model-zoo graph with every memory strategy and prints one
markdown table: arena bytes against the max-live lower bound and the naive sum,
and how long each plan took inside the engine.

    tools/zoo_memory.sh [--models a,b] [--plan_time_limit_ms N]
    tools/zoo_memory.sh --device GPU [--models a,b]

Each deployment file under models/ is converted with tools/converter.py (the
graph only; nothing is built), then `mace_run --compare_strategies` creates
the engine once per strategy on the host CPU and reports each plan.

With --device GPU, `mace_run --device=GPU --memory_report` runs each model
once per image storage (fp16_fp32, fp32_fp32) on the OpenCL device (any
device, PoCL's CPU device on a machine without a GPU), and the table gives
each memory type's planned, naive and lower-bound bytes.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

# The zoo's deployment files, in the order the report lists them.
ZOO = ["mobilenet_v1", "mobilenet_v2", "squeezenet1_1", "resnet18", "resnet50",
       "shufflenet_v2", "inception_v3", "deeplab_v3"]

# One row of mace_run's strategy table:
#   name (planner name)  arena  lower  gap%  naive  plan-ms
ROW = re.compile(r"^(\w+) \(([\w ,+-]+)\)\s+(\d+)\s+(\d+)\s+(-?[\d.]+)%\s+(\d+)\s+([\d.]+)\s*$")


@dataclass
class PlanRow:
    strategy: str
    arena: int
    lower_bound: int
    naive: int
    plan_ms: float

    @property
    def gap_percent(self) -> float:
        return 100.0 * (self.arena - self.lower_bound) / self.lower_bound if self.lower_bound else 0.0


def parse_strategy_table(text: str) -> list[PlanRow]:
    """The rows of `mace_run --compare_strategies` output, in printed order."""
    rows = []
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match:
            rows.append(PlanRow(strategy=match.group(1), arena=int(match.group(3)),
                                lower_bound=int(match.group(4)), naive=int(match.group(6)),
                                plan_ms=float(match.group(7))))
    return rows


# One row of mace_run --memory_report's table of memory types:
#   GPU_IMAGE   GPU   greedy_in_order   planned   naive   lower   blocks
MEMORY_ROW = re.compile(r"^(CPU_BUFFER|GPU_BUFFER|GPU_IMAGE)\s+(\w+)\s+(\w+)\s+(\d+)\s+(\d+)"
                        r"\s+(\d+)\s+(\d+)\s*$")
GPU_DATA_TYPES = ("fp16_fp32", "fp32_fp32")


@dataclass
class MemoryRow:
    memory_type: str
    strategy: str
    planned: int
    naive: int
    lower_bound: int
    blocks: int


def parse_memory_types(text: str) -> list[MemoryRow]:
    """The per-memory-type rows of `mace_run --memory_report`."""
    rows = []
    for line in text.splitlines():
        match = MEMORY_ROW.match(line.strip())
        if match:
            rows.append(MemoryRow(memory_type=match.group(1), strategy=match.group(3),
                                  planned=int(match.group(4)), naive=int(match.group(5)),
                                  lower_bound=int(match.group(6)), blocks=int(match.group(7))))
    return rows


def format_gpu_report(results: dict[tuple[str, str], list[MemoryRow]]) -> str:
    """One markdown row per model, storage and memory type, in MiB."""
    lines = ["| model | storage | memory type | strategy | planned MiB | naive MiB | "
             "lower bound MiB | planned / lower bound | objects |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (model, storage), rows in results.items():
        for row in rows:
            ratio = f"{row.planned / row.lower_bound:.2f}" if row.lower_bound else "-"
            lines.append(f"| {model} | {storage} | {row.memory_type} | {row.strategy} | "
                         f"{mib(row.planned)} | {mib(row.naive)} | {mib(row.lower_bound)} | "
                         f"{ratio} | {row.blocks} |")
    return "\n".join(lines) + "\n"


def mib(size: int) -> str:
    return f"{size / 2**20:.2f}"


def format_report(results: dict[str, list[PlanRow]]) -> str:
    """Two markdown tables: arena MiB (gap to the lower bound) and plan time."""
    strategies = []
    for rows in results.values():
        for row in rows:
            if row.strategy not in strategies:
                strategies.append(row.strategy)
    header = "| strategy | " + " | ".join(results) + " |\n"
    rule = "|---|" + "---|" * len(results) + "\n"
    sizes = header + rule
    times = header + rule
    for strategy in strategies:
        size_cells, time_cells = [], []
        for rows in results.values():
            row = next((r for r in rows if r.strategy == strategy), None)
            size_cells.append(f"{mib(row.arena)} (+{row.gap_percent:.1f}%)" if row else "-")
            time_cells.append(f"{row.plan_ms:.2f}" if row else "-")
        sizes += f"| {strategy} | " + " | ".join(size_cells) + " |\n"
        times += f"| {strategy} | " + " | ".join(time_cells) + " |\n"
    bounds = [rows[0] for rows in results.values()]
    sizes += "| max-live lower bound | " + " | ".join(mib(r.lower_bound) for r in bounds) + " |\n"
    sizes += "| naive sum | " + " | ".join(mib(r.naive) for r in bounds) + " |\n"
    return ("### Arena MiB (gap to the max-live lower bound)\n\n" + sizes +
            "\n### Planning time inside the engine, ms\n\n" + times)


def run(command: list[str], **kwargs) -> str:
    done = subprocess.run(command, cwd=REPO, text=True, capture_output=True, **kwargs)
    if done.returncode != 0:
        sys.exit(f"zoo_memory: error: `{' '.join(command)}` failed:\n"
                 f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def model_graph(config: Path) -> tuple[Path, Path]:
    """Converts a deployment file's single model; returns its .pb and .data."""
    run([sys.executable, str(REPO / "tools" / "converter.py"), "convert", "--config", str(config)])
    library = re.search(r"^library_name:\s*(\S+)", config.read_text(), re.M).group(1)
    models = sorted((REPO / "build" / ".work" / library / "models").glob("*.pb"))
    if len(models) != 1:
        sys.exit(f"zoo_memory: error: {config} should hold exactly one model")
    return models[0], models[0].with_suffix(".data")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mace_run", required=True, help="the host mace_run binary")
    parser.add_argument("--models", default=",".join(ZOO), help="deployment file names")
    parser.add_argument("--plan_time_limit_ms", type=int, default=None,
                        help="OPTIMAL's budget per model (default: the engine's)")
    parser.add_argument("--device", choices=["CPU", "GPU"], default="CPU",
                        help="GPU: the memory report of each model on the GPU runtime, "
                             "in both image storages")
    args = parser.parse_args(argv)
    if args.device == "GPU":
        return gpu_main(args)
    results = {}
    for name in args.models.split(","):
        config = REPO / "models" / f"{name}.yml"
        if not config.exists():
            sys.exit(f"zoo_memory: error: no deployment file {config}")
        print(f"zoo_memory: {name}", file=sys.stderr)
        graph, data = model_graph(config)
        budget = ([f"--plan_time_limit_ms={args.plan_time_limit_ms}"]
                  if args.plan_time_limit_ms is not None else [])
        output = run([args.mace_run, f"--model_file={graph}", f"--model_data_file={data}",
                      "--compare_strategies", "--round=1", *budget])
        rows = parse_strategy_table(output)
        if not rows:
            sys.exit(f"zoo_memory: error: no strategy table in mace_run's output for {name}")
        results[name] = rows
    print(format_report(results))
    return 0


def gpu_main(args: argparse.Namespace) -> int:
    from mace_converter.run import POCL_CACHE
    if "POCL_CACHE_DIR" not in os.environ:      # PoCL's compiled kernels, kept between runs
        POCL_CACHE.mkdir(parents=True, exist_ok=True)
        os.environ["POCL_CACHE_DIR"] = str(POCL_CACHE)
    results: dict[tuple[str, str], list[MemoryRow]] = {}
    for name in args.models.split(","):
        config = REPO / "models" / f"{name}.yml"
        if not config.exists():
            sys.exit(f"zoo_memory: error: no deployment file {config}")
        graph, data = model_graph(config)
        for storage in GPU_DATA_TYPES:
            print(f"zoo_memory: {name} on the GPU, {storage}", file=sys.stderr)
            output = run([args.mace_run, f"--model_file={graph}", f"--model_data_file={data}",
                          "--device=GPU", "--opencl_device_fallback",
                          f"--gpu_data_type={storage}", "--memory_report", "--round=1"])
            rows = parse_memory_types(output)
            if not rows:
                sys.exit(f"zoo_memory: error: no memory types in mace_run's report for {name}")
            results[(name, storage)] = rows
    print(format_gpu_report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
