"""A three-model pipeline from the zoo (MobileNet v1, SqueezeNet 1.1,
ShuffleNet v2, the zoo's architectures and seeded weights) run on the CPU two
ways, each in a process of its own: an engine with its own thread pool and
arena per model, and all three engines in one mace.Context in one sequential
group. Prints one JSON line per way: worker threads, arena bytes (the sum of
the plans, or the shared arena), the largest single plan, peak RSS (VmHWM)
and a digest of every output, so that the two ways can be compared.

    PYTHONPATH=tools/python:mace/python MACE_LIBRARY=bazel-bin/mace/libmace/libmace.so \\
        .venv/bin/python -m mace_tools.pipeline_bench [--size 224] [--threads 2]
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

STAGES = ["mobilenet_v1", "squeezenet1_1", "shufflenet_v2_x1_0"]


def convert(directory: Path, size: int, names: list[str] = STAGES) -> dict[str, tuple[Path, Path]]:
    """The zoo models `names` at `size` x `size` input, converted into
    `directory`: name -> (graph, weights)."""
    from mace_converter import cli
    from mace_tools.zoo_deployment import classifier_model, write_deployment, write_zoo_onnx

    directory.mkdir(parents=True, exist_ok=True)
    models = {name: classifier_model(write_zoo_onnx(name, size, directory), size,
                                     data_type="fp32_fp32")
              for name in names}
    config = write_deployment(directory / "pipeline.yml", "pipeline", models)
    out = io.StringIO()
    old_build = os.environ.get("MACE_BUILD_DIR")
    os.environ["MACE_BUILD_DIR"] = str(directory / "build")
    try:
        with contextlib.redirect_stdout(out):
            status = cli.main(["convert", "--config", str(config)])
    finally:
        if old_build is None:
            del os.environ["MACE_BUILD_DIR"]
        else:
            os.environ["MACE_BUILD_DIR"] = old_build
    if status != 0:
        raise RuntimeError(f"conversion failed:\n{out.getvalue()}")
    converted = directory / "build" / "pipeline" / "model"
    return {name: (converted / f"{name}.pb", converted / f"{name}.data") for name in names}


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return -1


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def measure(models: dict[str, tuple[Path, Path]], shared: bool, threads: int, size: int) -> dict:
    """Runs the pipeline once per stage and reports what it took."""
    import mace

    before = _threads()
    context = mace.Context(threads=threads) if shared else None
    engines = [mace.Engine(graph, weights, threads=threads, context=context,
                           sequential_group=0 if shared else -1)
               for graph, weights in models.values()]
    x = np.random.default_rng(3).uniform(-1, 1, (1, 3, size, size)).astype(np.float32)
    digest = hashlib.sha256()
    for engine in engines:
        for name, value in sorted(engine.run({"input": x}).items()):
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(value).tobytes())
    plans = [engine.memory_report()["arena_bytes"] for engine in engines]
    return {"mode": "context" if shared else "separate",
            "worker_threads": _threads() - before,
            "arena_bytes": context.arena_bytes if shared else sum(plans),
            "largest_plan_bytes": max(plans),
            "peak_rss_bytes": _status("VmHWM"),
            "outputs_sha256": digest.hexdigest()}


def run_both(models_dir: Path, size: int, threads: int) -> list[dict]:
    """Each way in a fresh process, so that peak RSS is its own."""
    results = []
    for mode in ("separate", "context"):
        done = subprocess.run([sys.executable, "-m", "mace_tools.pipeline_bench",
                               "--measure", mode, "--models_dir", str(models_dir),
                               "--size", str(size), "--threads", str(threads)],
                              capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{mode}: {done.stderr}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--measure", choices=["separate", "context"])
    parser.add_argument("--models_dir", type=Path)
    args = parser.parse_args(argv)
    if args.measure:
        models = {name: (args.models_dir / f"{name}.pb", args.models_dir / f"{name}.data")
                  for name in STAGES}
        print(json.dumps(measure(models, args.measure == "context", args.threads, args.size)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        models = convert(Path(tmp), args.size)
        for result in run_both(next(iter(models.values()))[0].parent, args.size, args.threads):
            print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
