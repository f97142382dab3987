"""MACE's side: build with `tools/converter.py build`, then mace_run with the
flags `converter.py run` gives it (mace_converter.run.run_model), on the
shared input."""
from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import yaml

from mace_converter import benchmark, conversion, input_values, layout, run
from mace_converter.api import TensorSpec
from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.package import library_dir, mace_run_path
from mace_converter.progress import REPO, UserError
from mace_tools.peer_bench.report import OpShare

CONVERTER = REPO / "tools" / "converter.py"


class PrepareError(Exception):
    """An engine cannot run a model; the message is one line."""


@dataclass
class MaceModel:
    runner: Path
    graph: Path
    weights: Path
    engine_inputs: list[TensorSpec]
    engine_outputs: list[TensorSpec]
    source_outputs: list[TensorSpec]
    input_prefix: Path
    output_prefix: Path
    code_mode: bool


def build(config: DeploymentConfig, log: Path, timeout: float) -> None:
    """`converter.py build` for the host; Bazel waits for a busy server. The
    log is written as the build goes, so a long one can be followed."""
    _converter(["build", "--config", str(config.path), "--target_abi", "host"], log, timeout)


def convert(config: DeploymentConfig, log: Path, timeout: float) -> None:
    """`converter.py convert` only: the model files, no Bazel build (for a
    mace_run built elsewhere)."""
    _converter(["convert", "--config", str(config.path)], log, timeout)


def _converter(arguments: list[str], log: Path, timeout: float) -> None:
    command = [sys.executable, str(CONVERTER), *arguments]
    what = f"tools/converter.py {arguments[0]}"
    with log.open("w") as output:
        try:
            result = subprocess.run(command, cwd=REPO, stdout=output, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise PrepareError(f"{what} timed out; log: {log}") from None
    if result.returncode != 0:
        lines = [line for line in log.read_text().splitlines() if line.strip()]
        last = lines[-1].strip() if lines else f"exit code {result.returncode}"
        raise PrepareError(f"{what} failed ({last}); log: {log}")


def derive_deployment(config: DeploymentConfig, model: ModelConfig, onnx: Path,
                      changes: dict, target: Path, suffix: str, made_by: str,
                      drop: Sequence[str] = ()) -> Path:
    """A deployment file for a twin of `model` written to `target`: the
    library name with `suffix` appended (so its build does not replace the
    float one), the ONNX file by absolute path, the model entry without the
    keys in `drop` and with `changes`. `made_by` is the option that made it,
    for the header comment."""
    document = yaml.safe_load(config.path.read_text())
    entry = dict(document["models"][model.name])
    for key in drop:
        entry.pop(key, None)
    entry.update({"model_file_path": str(onnx.resolve()), **changes})
    document.update({"library_name": f"{document['library_name']}_{suffix}",
                     "models": {model.name: entry}})
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"# Made by tools/peer_bench.py {made_by} from "
                      f"{config.path.name}; rewritten on each run.\n"
                      + yaml.safe_dump(document, sort_keys=False))
    return target


def locate(config: DeploymentConfig, model: ModelConfig, arrays: dict[str, np.ndarray],
           work: Path, runner: Optional[Path] = None) -> MaceModel:
    """The built runner (or `runner`) and model files, and the inputs
    (`arrays`, keyed by the deployment file's names) in the engine's layout:
    int32, int64 and bool inputs in the type the converted model takes,
    every other input as float32 (as the float model is fed)."""
    try:
        artifacts = conversion.load_artifacts(config, model)
    except UserError as error:
        raise PrepareError(str(error).splitlines()[0]) from None
    runner = runner or mace_run_path(config, "host")
    if not runner.exists():
        raise PrepareError(f"{runner} is missing: build it with `tools/converter.py build "
                           f"--config {config.path}`")
    graph, weights = artifacts.pb, artifacts.data
    packaged = library_dir(config) / "model"
    if config.build_type == "proto" and (packaged / f"{model.name}.pb").exists():
        graph, weights = packaged / f"{model.name}.pb", packaged / f"{model.name}.data"
    work.mkdir(parents=True, exist_ok=True)
    types = run.input_types(artifacts)
    missing = [spec.name for spec in artifacts.source_inputs if spec.name not in arrays]
    if missing:
        raise PrepareError(f"no input values for {', '.join(missing)}")
    engine_inputs = layout.to_engine({spec.name: arrays[spec.name]
                                      for spec in artifacts.source_inputs},
                                     artifacts.source_inputs, artifacts.engine_inputs)
    by_engine_name = {engine.name: _feed_type(types.get(source.name, "float32"))
                      for source, engine in zip(artifacts.source_inputs,
                                                artifacts.engine_inputs)}
    for name, array in engine_inputs.items():
        np.save(work / f"input_{_safe_name(name)}.npy",
                array.astype(by_engine_name.get(name, "float32")))
    return MaceModel(runner=runner, graph=graph, weights=weights,
                     engine_inputs=artifacts.engine_inputs,
                     engine_outputs=artifacts.engine_outputs,
                     source_outputs=artifacts.source_outputs, input_prefix=work / "input",
                     output_prefix=work / "output", code_mode=config.build_type == "code")


def command(model: MaceModel, threads: int, rounds: int, affinity: int,
            profile: bool = False) -> list[str]:
    text = [str(model.runner), f"--model_file={model.graph}",
            f"--model_data_file={model.weights}",
            "--input_node=" + ",".join(s.name for s in model.engine_inputs),
            "--input_shape=" + _shapes(model.engine_inputs),
            "--output_node=" + ",".join(s.name for s in model.engine_outputs),
            "--output_shape=" + _shapes(model.engine_outputs),
            f"--input_file={model.input_prefix}", f"--output_file={model.output_prefix}",
            "--device=CPU", f"--round={rounds}", "--restart_round=1",
            f"--omp_num_threads={threads}", f"--cpu_affinity_policy={affinity}"]
    return text + (["--benchmark"] if profile else [])


def latency(stdout: str) -> dict[str, float]:
    return run.parse_latency(stdout)


def read_output(model: MaceModel) -> np.ndarray:
    """The first output, back in the source framework's layout."""
    spec = model.engine_outputs[0]
    path = Path(f"{model.output_prefix}_{_safe_name(spec.name)}.npy")
    array = np.load(path)
    source = layout.to_source({spec.name: array}, model.source_outputs[:1], [spec])
    return next(iter(source.values()))


def op_shares(stdout: str) -> list[OpShare]:
    """mace_run --benchmark's per-op table summed by op type, largest first."""
    ops = benchmark.parse_op_table(stdout)
    total = sum(op.ms for op in ops) or 1.0
    by_type: dict[str, list[float]] = defaultdict(list)
    for op in ops:
        by_type[op.type].append(op.ms)
    shares = [OpShare(op_type=name, count=len(times), ms=sum(times), share=sum(times) / total)
              for name, times in by_type.items()]
    return sorted(shares, key=lambda s: -s.ms)


def _feed_type(app_type: str) -> str:
    return app_type if app_type in input_values.INTEGER_TYPES else "float32"


def _shapes(specs: list[TensorSpec]) -> str:
    return ":".join(",".join(str(d) for d in spec.shape) for spec in specs)


def _safe_name(name: str) -> str:
    return name.replace("/", "_").replace(":", "_").replace(" ", "_")
