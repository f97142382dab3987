"""Calibration: the float model runs under `mace_run --quantize_stat` over
calibration inputs (files, or random inputs within input_ranges as a weak
stand-in), and the per-tensor ranges of each run are merged into one range
file."""
from __future__ import annotations

import math
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np

from mace_converter.api import TensorSpec
from mace_converter.progress import REPO, UserError, say
from mace_converter.quantize import kl
from mace_converter.quantize.ranges import (Ranges, merge_ranges, parse_ranges,
                                            write_ranges)

RANDOM_SAMPLES = 8
RANDOM_SEED = 20240611
Sample = dict[str, np.ndarray]


def _load(path: Path, key: str) -> np.lib.npyio.NpzFile | np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise UserError(f"{key}: cannot read {path}: {error}") from None


def _check(array: np.ndarray, spec: TensorSpec, path: Path, key: str) -> np.ndarray:
    if array.dtype.kind != "f":
        raise UserError(f"{key}: {path}: input '{spec.name}' is {array.dtype}; calibration "
                        "inputs must be floating point")
    if list(array.shape) != list(spec.shape):
        raise UserError(f"{key}: {path}: input '{spec.name}' has shape {list(array.shape)}, "
                        f"but the model takes {list(spec.shape)}")
    if not np.isfinite(array).all():
        raise UserError(f"{key}: {path}: input '{spec.name}' holds NaN or infinity")
    return array.astype(np.float32)


def _samples_of(path: Path, inputs: Sequence[TensorSpec], key: str) -> list[Sample]:
    """A .npy file: one sample of a one-input model, or a stack of them
    along a new first axis. A .npz file: one sample, an array per input."""
    data = _load(path, key)
    if isinstance(data, np.ndarray):
        if len(inputs) != 1:
            raise UserError(f"{key}: {path}: a model with {len(inputs)} inputs needs .npz "
                            f"calibration files (one array per input: "
                            f"{', '.join(s.name for s in inputs)})")
        spec = inputs[0]
        if data.ndim == len(spec.shape) + 1 and list(data.shape[1:]) == list(spec.shape):
            return [{spec.name: _check(each, spec, path, key)} for each in data]
        return [{spec.name: _check(data, spec, path, key)}]
    with data:
        missing = [s.name for s in inputs if s.name not in data.files]
        if missing:
            raise UserError(f"{key}: {path} has no array for input(s) {', '.join(missing)} "
                            f"(it has: {', '.join(data.files) or 'none'})")
        return [{s.name: _check(data[s.name], s, path, key) for s in inputs}]


def load_samples(entries: Sequence[str], inputs: Sequence[TensorSpec], key: str,
                 base: Path) -> list[Sample]:
    """Samples from files and directories (every .npy/.npz in them, sorted)."""
    samples: list[Sample] = []
    for entry in entries:
        path = Path(entry).expanduser()
        if not path.is_absolute():
            path = (base / path) if (base / path).exists() else (REPO / path)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix in (".npy", ".npz"))
            if not files:
                raise UserError(f"{key}: directory {path} holds no .npy or .npz files")
        elif path.is_file():
            files = [path]
        else:
            raise UserError(f"{key}: {entry}: no such file or directory")
        for file in files:
            samples.extend(_samples_of(file, inputs, key))
    return samples


def random_samples(inputs: Sequence[TensorSpec], count: int = RANDOM_SAMPLES) -> list[Sample]:
    rng = np.random.default_rng(RANDOM_SEED)
    return [{s.name: rng.uniform(*s.value_range, size=s.shape).astype(np.float32)
             for s in inputs} for _ in range(count)]


def random_warning(model_name: str, inputs: Sequence[TensorSpec]) -> str:
    ranges = ", ".join(f"{s.name} in [{s.value_range[0]:g}, {s.value_range[1]:g})"
                       for s in inputs)
    bar = "!" * 72
    return (f"{bar}\nWARNING: model {model_name} has no calibration_inputs; calibrating on "
            f"{RANDOM_SAMPLES} uniform random inputs ({ranges}).\nRandom data is a weak "
            "stand-in for real inputs: activation ranges, and so uint8 accuracy, can be far "
            "off.\nGive calibration_inputs (.npy/.npz files or a directory of them) for a "
            f"model you ship.\n{bar}")


def mace_run_binary() -> Path:
    """MACE_RUN, or the host mace_run of this checkout (built when missing)."""
    if os.environ.get("MACE_RUN"):
        return Path(os.environ["MACE_RUN"])
    binary = REPO / "bazel-bin" / "mace" / "tools" / "mace_run"
    if not binary.exists():
        say("    building the host mace_run for calibration")
        result = subprocess.run(["bazel", "build", "//mace/tools:mace_run"], cwd=REPO,
                                capture_output=True, text=True)
        if result.returncode != 0 or not binary.exists():
            raise UserError("calibration needs the host mace_run, and building it failed:\n"
                            + result.stderr[-2000:])
    return binary


def _safe(name: str) -> str:
    return name.replace("/", "_").replace(":", "_").replace(" ", "_")


def _run(binary: Path, graph: Path, weights: Path, engine_inputs: Sequence[TensorSpec],
         sample: Sample, directory: Path, stat: Path, extra: Sequence[str], what: str) -> str:
    """One mace_run of the float model on `sample`; returns the stat file."""
    for spec in engine_inputs:
        np.save(directory / f"in_{_safe(spec.name)}.npy", sample[spec.name])
    command = [str(binary), f"--model_file={graph}", f"--model_data_file={weights}",
               "--input_node=" + ",".join(s.name for s in engine_inputs),
               "--input_shape=" + ":".join(",".join(map(str, s.shape)) for s in engine_inputs),
               f"--input_file={directory / 'in'}", f"--quantize_stat={stat}", *extra]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise UserError(f"{what} failed:\n" + (result.stderr or result.stdout)[-2000:])
    return stat.read_text()


def collect_ranges(graph: Path, weights: Path, engine_inputs: Sequence[TensorSpec],
                   samples: Sequence[Sample], method: str = "minmax",
                   percentile: float = 99.99) -> Ranges:
    """Runs the float model once per sample (inputs keyed by engine names,
    in the engine's layout) and merges the ranges. "kl" runs each sample a
    second time for histograms over the min/max ranges (quantize/kl.py)."""
    binary = mace_run_binary()
    runs = []
    extra = [f"--quantize_stat_percentile={percentile}"] if method == "percentile" else []
    with tempfile.TemporaryDirectory(prefix="mace_calibration_") as tmp:
        directory = Path(tmp)
        for index, sample in enumerate(samples):
            stat = directory / f"ranges_{index}.txt"
            text = _run(binary, graph, weights, engine_inputs, sample, directory, stat, extra,
                        f"calibration run {index + 1}")
            runs.append(parse_ranges(text, str(stat)))
        merged = merge_ranges(runs, method)
        _check_finite(merged)
        if method == "kl":
            merged = _kl_ranges(binary, graph, weights, engine_inputs, samples, directory, merged)
    return merged


def _kl_ranges(binary: Path, graph: Path, weights: Path, engine_inputs: Sequence[TensorSpec],
               samples: Sequence[Sample], directory: Path, ranges: Ranges) -> Ranges:
    bounds = directory / "bounds.txt"
    write_ranges(bounds, kl.bounds_of(ranges))
    extra = [f"--quantize_stat_histogram={bounds}", f"--quantize_stat_bins={kl.COUNTED_BINS}"]
    runs = []
    for index, sample in enumerate(samples):
        stat = directory / f"histograms_{index}.txt"
        text = _run(binary, graph, weights, engine_inputs, sample, directory, stat, extra,
                    f"calibration histogram run {index + 1}")
        runs.append(kl.parse_histograms(text, str(stat)))
    return kl.kl_ranges(ranges, kl.merge_histograms(runs))


def _check_finite(ranges: Ranges) -> None:
    for name, (low, high) in ranges.items():
        if not (math.isfinite(low) and math.isfinite(high)):
            raise UserError(f"calibration: tensor '{name}' has no finite range")
