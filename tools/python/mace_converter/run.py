"""`run` and the runner under `benchmark`: mace_run on the converted model,
on the host or, for ARM ABIs, under qemu-user as the device."""
from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from mace_converter import fetch, input_values, layout
from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.conversion import ModelArtifacts, work_dir
from mace_converter.package import dsp_image_path, library_dir, mace_run_path, opencl_run_flags
from mace_converter.progress import REPO, UserError, say, shell_text, shown

INPUT_SEED = 20240611
# The cross toolchain's loader must meet its own libc: with only -L, the loader
# from /usr/<triple>/lib can pick up a newer multiarch libc from
# /lib/<triple>/ (libc6:arm64), and the mix hangs in pthread_create.
QEMU = {
    abi: [qemu, "-L", f"/usr/{triple}", "-E", f"LD_LIBRARY_PATH=/usr/{triple}/lib"]
    for abi, qemu, triple in (("arm64-v8a", "qemu-aarch64", "aarch64-linux-gnu"),
                              ("armeabi-v7a", "qemu-arm", "arm-linux-gnueabihf"))
}
_DEVICE_FLAG = {"cpu": "CPU", "gpu": "GPU", "dsp": "HEXAGON"}
# PoCL (the OpenCL CPU device the GPU runtime is tested on) compiles every
# kernel again unless its cache survives between runs.
POCL_CACHE = Path.home() / ".cache" / "mace-pocl"
_LATENCY = {
    "init_ms": re.compile(r"^init: ([\d.]+) ms"),
    "first_run_ms": re.compile(r"^first run: ([\d.]+) ms"),
    "median_ms": re.compile(r"^runs: \d+\s+min [\d.]+ ms\s+median ([\d.]+) ms"),
    "min_ms": re.compile(r"^runs: \d+\s+min ([\d.]+) ms"),
    "max_ms": re.compile(r"^runs: .*max ([\d.]+) ms"),
}


@dataclass
class RunOptions:
    round: int = 1
    restart_round: int = 1
    omp_num_threads: int = -1
    cpu_affinity_policy: int = 1
    gpu_perf_hint: int = 3
    gpu_priority_hint: int = 3
    benchmark: bool = False
    memory_report: bool = False


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]       # keyed by the deployment file's names and layout
    latency: dict[str, float]
    stdout: str
    command: list[str] = field(default_factory=list)
    # The uint8 outputs of a quantize_uint8_io model as mace_run wrote them
    # (same keys and layout as `outputs`, which holds them dequantized).
    uint8_outputs: dict[str, np.ndarray] = field(default_factory=dict)
    # With run_model's `intermediates`: those tensors and the model's
    # outputs as the engine holds them, keyed by its names, in its layout.
    intermediates: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class Uint8Io:
    """A graph input or output that the app exchanges as uint8
    (quantize_uint8_io): real = scale * (q - zero_point)."""
    name: str
    scale: float            # the float32 value InputOutputInfo holds
    zero_point: int

    def describe(self) -> str:
        return f"scale {self.scale:.9g}, zero point {self.zero_point}"


class RuntimeUnavailable(UserError):
    """The engine was built without the runtime the model asks for."""


def device_description(abi: str) -> str:
    if abi == "host":
        return f"host ({platform.machine()}, native)"
    return (f"{' '.join(QEMU[abi])} (emulated {abi}: the ARM code runs under qemu-user; "
            "its timings say nothing about a phone)")


def uint8_io(artifacts: ModelArtifacts, graph: Path | None = None) -> tuple[
        dict[str, Uint8Io], dict[str, Uint8Io]]:
    """The model's uint8 inputs and outputs, keyed by the deployment file's
    names, with their scale and zero point from the InputOutputInfo of
    `graph` (default: the converted model); both empty for a model that
    exchanges no uint8."""
    from mace_tools import proto
    pb = proto.load()
    net = pb.NetDef()
    graph = graph or artifacts.pb
    try:
        net.ParseFromString(graph.read_bytes())
    except (OSError, ValueError) as error:
        raise UserError(f"cannot read the converted model {graph}: {error}") from None
    found = []
    for kind, infos, source, engine in (
            ("input", net.input_info, artifacts.source_inputs, artifacts.engine_inputs),
            ("output", net.output_info, artifacts.source_outputs, artifacts.engine_outputs)):
        names = {e.name: s.name for s, e in zip(source, engine)}
        table = {}
        for info in infos:
            if info.data_type != pb.DT_UINT8 or info.name not in names or \
                    info.app_data_type not in (pb.IO_DEFAULT, pb.IO_UINT8):
                continue
            where = f"{graph}: {kind} '{info.name}' is uint8"
            if not info.HasField("scale") or not (np.isfinite(info.scale) and info.scale > 0):
                got = f"scale {info.scale:g}" if info.HasField("scale") else "no scale"
                raise UserError(f"{where} but its InputOutputInfo has {got}: a uint8 "
                                "input or output needs a finite positive scale to be "
                                "quantized or dequantized; convert the model again")
            if not 0 <= info.zero_point <= 255:
                raise UserError(f"{where} but its zero point {info.zero_point} is not in "
                                "[0, 255]; convert the model again")
            table[names[info.name]] = Uint8Io(names[info.name], float(np.float32(info.scale)),
                                              int(info.zero_point))
        found.append(table)
    return found[0], found[1]


def quantize_uint8(values: np.ndarray, quant: Uint8Io) -> tuple[np.ndarray, int]:
    """The engine's Quantize (QuantizeValue in mace/ops/common/quantize.cc):
    q = clamp(zero_point + round_half_away(double(x) / scale), 0, 255), NaN
    to the zero point. Returns q and how many values were clamped."""
    x = np.asarray(values, dtype=np.float32).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        quotient = x / np.float64(np.float32(quant.scale))
        whole = np.trunc(quotient)
        # Exact: the fraction of a double is a double.
        whole += np.where(np.abs(quotient - whole) >= 0.5, np.sign(quotient), 0.0)
        value = quant.zero_point + whole
        outside = (value < 0.0) | (value > 255.0)
    value = np.where(np.isnan(value), quant.zero_point, value)
    return np.clip(value, 0.0, 255.0).astype(np.uint8), int(np.count_nonzero(outside))


def dequantize_uint8(values: np.ndarray, quant: Uint8Io) -> np.ndarray:
    """The engine's Dequantize: float(scale) * float(q - zero_point), in float32."""
    steps = (np.asarray(values).astype(np.int32) - quant.zero_point).astype(np.float32)
    return np.float32(quant.scale) * steps


def float_inputs(artifacts: ModelArtifacts,
                 inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`inputs` with each uint8 array for a uint8 input dequantized: what the
    float model (the reference, or the float-io twin) is fed."""
    if not any(array.dtype == np.uint8 for array in inputs.values()):
        return inputs
    quantized, _ = uint8_io(artifacts)
    return {name: (dequantize_uint8(array, quantized[name]) if name in quantized
                   else array.astype(np.float32)) if array.dtype == np.uint8 else array
            for name, array in inputs.items()}


def make_inputs(config: DeploymentConfig, model: ModelConfig,
                artifacts: ModelArtifacts | None = None) -> tuple[dict[str, np.ndarray], str]:
    """Inputs in the deployment file's layout, and where they came from;
    each in the type the converted model (`artifacts`) declares for it:
    int32, int64 and bool inputs get whole numbers (input_values.py)."""
    types = input_types(artifacts) if artifacts is not None else {}
    if model.validation_inputs_data:
        files = fetch.validation_files(config, model)
        arrays = {spec.name: _load_tensor(path, spec.shape, config, model,
                                          types.get(spec.name, "float32"))
                  for spec, path in zip(model.inputs, files)}
        return arrays, "validation_inputs_data: " + ", ".join(p.name for p in files)
    rng = np.random.default_rng(INPUT_SEED)
    arrays, ranges = {}, []
    for spec in model.inputs:
        arrays[spec.name], described = input_values.draw(
            rng, spec, types.get(spec.name, "float32"), model.input_ranges_given)
        ranges.append(described)
    return arrays, f"uniform random, seed {INPUT_SEED}: {', '.join(ranges)}"


def input_types(artifacts: ModelArtifacts) -> dict[str, str]:
    """The type the engine takes for each input, keyed by the deployment
    file's names."""
    types = input_values.app_types(artifacts.pb)
    return {source.name: types.get(engine.name, "float32")
            for source, engine in zip(artifacts.source_inputs, artifacts.engine_inputs)}


def run_model(config: DeploymentConfig, model: ModelConfig, artifacts: ModelArtifacts,
              abi: str, device: str, inputs: dict[str, np.ndarray],
              options: RunOptions, echo: bool = True,
              intermediates: Sequence[str] = ()) -> RunResult:
    """Runs mace_run on `inputs` (keyed by the deployment file's names, in
    its layout). `intermediates` names tensors that ops of the model produce,
    which the engine then hands out beside the outputs (RunResult.
    intermediates); their output files must not collide (safe_name)."""
    runner = mace_run_path(config, abi)
    if not runner.exists():
        raise UserError(f"{runner} does not exist: build {abi} first with "
                        f"`tools/converter.py build --config {config.path}`")
    run_dir = work_dir(config) / "run" / model.name / f"{abi}-{device}"
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in run_dir.glob("*.npy"):
        stale.unlink()
    graph, weights = model_files(config, model, artifacts)
    quantized_inputs, quantized_outputs = uint8_io(artifacts, graph)
    engine_inputs = layout.to_engine(_engine_types(inputs, quantized_inputs, echo),
                                     artifacts.source_inputs, artifacts.engine_inputs)
    for name, array in engine_inputs.items():
        np.save(run_dir / f"input_{safe_name(name)}.npy", array)
    command = QEMU.get(abi, []) + [
        str(runner), f"--model_file={graph}", f"--model_data_file={weights}",
        "--input_node=" + ",".join(s.name for s in artifacts.engine_inputs),
        "--input_shape=" + _shapes(artifacts.engine_inputs),
        "--output_node=" + ",".join([s.name for s in artifacts.engine_outputs]
                                    + list(intermediates)),
        f"--input_file={run_dir / 'input'}", f"--output_file={run_dir / 'output'}",
        f"--device={_DEVICE_FLAG[device]}", f"--round={options.round}",
        f"--restart_round={options.restart_round}",
        f"--omp_num_threads={options.omp_num_threads}",
        f"--cpu_affinity_policy={options.cpu_affinity_policy}",
        f"--gpu_perf_hint={options.gpu_perf_hint}",
        f"--gpu_priority_hint={options.gpu_priority_hint}"]
    if not intermediates:
        # mace_run takes a shape for every --output_node or for none; the
        # outputs' sizes are still checked as they are read (layout.relayout).
        command.append("--output_shape=" + _shapes(artifacts.engine_outputs))
    if device == "gpu":
        command += gpu_flags(model, run_dir) + opencl_run_flags(config, abi)
    if device == "cpu" and model.device_data_type("cpu") == "fp16_fp16":
        # Half-precision arithmetic where the CPU has it (ARMv8.2), else fp32.
        command.append("--cpu_precision=fp16")
    if options.benchmark:
        command.append("--benchmark")
    plan = run_dir / "memory_plan"
    if options.memory_report:
        command.append("--memory_report")
        if device == "cpu":
            # The CPU arena's records and plan, drawn below.
            command.append(f"--memory_plan={plan}")
    if device == "dsp":
        command += dsp_flags(config)
    environment = _environment(device)
    if echo:
        say(f"    $ {shell_text(command)}")
    try:
        result = subprocess.run(command, text=True, capture_output=True, env=environment)
    except FileNotFoundError as error:
        raise UserError(f"cannot start {command[0]}: {error.strerror}") from None
    if result.returncode != 0:
        raise run_failure(model.name, abi, device, result.returncode,
                          result.stderr.strip() or result.stdout.strip())
    if options.memory_report and device == "cpu":
        draw_memory_plan(plan)
    engine_outputs = {spec.name: np.load(run_dir / f"output_{safe_name(spec.name)}.npy")
                      for spec in artifacts.engine_outputs}
    held = dict(engine_outputs) if intermediates else {}
    held.update({name: np.load(run_dir / f"output_{safe_name(name)}.npy")
                 for name in intermediates})
    outputs = layout.to_source(engine_outputs, artifacts.source_outputs, artifacts.engine_outputs)
    uint8_outputs = {}
    for name, quant in quantized_outputs.items():
        if outputs[name].dtype != np.uint8:
            raise UserError(f"mace_run wrote output {name} of model {model.name} as "
                            f"{outputs[name].dtype}, but the model's output is uint8")
        uint8_outputs[name] = outputs[name]
        outputs[name] = dequantize_uint8(outputs[name], quant)
        if echo:
            say(f"    output {name}: uint8 from mace_run, dequantized by the tool as "
                f"scale * (q - zero point), {quant.describe()}")
    return RunResult(outputs=outputs, latency=parse_latency(result.stdout),
                     stdout=result.stdout, command=command, uint8_outputs=uint8_outputs,
                     intermediates=held)


def model_files(config: DeploymentConfig, model: ModelConfig,
                artifacts: ModelArtifacts) -> tuple[Path, Path]:
    """The graph and weights mace_run loads: the packaged ones of a proto
    build, else those in the work directory."""
    packaged = library_dir(config) / "model"
    if config.build_type == "proto" and (packaged / f"{model.name}.pb").exists():
        return packaged / f"{model.name}.pb", packaged / f"{model.name}.data"
    return artifacts.pb, artifacts.data


def _engine_types(inputs: dict[str, np.ndarray], quantized: dict[str, Uint8Io],
                  echo: bool) -> dict[str, np.ndarray]:
    """Each uint8 input of a quantize_uint8_io model as uint8: a float
    array quantized as the engine's Quantize op would, a uint8 one (a
    uint8 .npy file) as it is. Integer and bool inputs keep their type;
    other inputs are fed as float32."""
    typed = {name: array if array.dtype.kind in "iub" else array.astype(np.float32)
             for name, array in inputs.items()}
    for name, quant in quantized.items():
        array = inputs[name]
        if array.dtype == np.uint8:
            typed[name] = array
            if echo:
                say(f"    input {name}: uint8 as given, fed as is ({quant.describe()})")
            continue
        typed[name], clamped = quantize_uint8(array, quant)
        if echo:
            say(f"    input {name}: quantized by the tool to uint8 as the engine's Quantize "
                f"op does, q = clamp(zero point + round_half_away(x / scale), 0, 255), "
                f"{quant.describe()}")
        if clamped and echo:
            low = dequantize_uint8(np.uint8(0), quant)
            high = dequantize_uint8(np.uint8(255), quant)
            say(f"    note: input {name}: {clamped} of {array.size} value(s) fall outside "
                f"what uint8 holds with this scale and zero point ({float(low):.6g} to "
                f"{float(high):.6g}); they were clamped to 0 or 255")
    return typed


def draw_memory_plan(plan: Path) -> None:
    """Draws the plan mace_run --memory_plan wrote (tools/plan_picture.py)."""
    csv_file, json_file = plan.with_suffix(".csv"), plan.with_suffix(".json")
    if not csv_file.exists() or not json_file.exists():
        return
    svg = plan.with_suffix(".svg")
    drawn = subprocess.run([sys.executable, str(REPO / "tools" / "plan_picture.py"),
                            str(json_file), str(csv_file), "-o", str(svg)],
                           capture_output=True, text=True)
    if drawn.returncode != 0:
        raise UserError(f"cannot draw the memory plan: {drawn.stderr.strip()}")
    say(f"    memory plan: {shown(csv_file)}, {shown(json_file)}, picture {shown(svg)}")


def run_failure(model_name: str, abi: str, device: str, returncode: int,
                output: str) -> UserError:
    """The error for a failed mace_run: RuntimeUnavailable when the device
    has no runtime here (no OpenCL library, platform or device for the
    GPU), so that a cpu+gpu model can go on without it."""
    message = output.splitlines() or [f"exit code {returncode}"]
    starts = [i for i, line in enumerate(message) if line.startswith("mace_run: error: ")]
    # The error's first line, and the lines that continue it (such as the
    # OpenCL libraries the engine tried).
    error = message[starts[-1]:] if starts else message[-1:]
    text = error[0].removeprefix("mace_run: error: ")
    if device == "gpu" and text.startswith("UNSUPPORTED") and "OpenCL" in text:
        detail = "\n".join([text] + error[1:20])
        return RuntimeUnavailable(f"runtime gpu cannot run here: {detail}")
    if device == "dsp" and "UNSUPPORTED" in text:
        return RuntimeUnavailable(f"runtime dsp cannot run here: {text}")
    return UserError(f"mace_run failed on model {model_name} ({abi}, {device}):\n"
                     + "\n".join(message[-20:]))


def dsp_flags(config: DeploymentConfig) -> list[str]:
    """mace_run's flags to start the DSP: the packaged image. The emulator
    is qemu-hexagon on PATH unless MACE_QEMU_HEXAGON names one."""
    image = dsp_image_path(config)
    if not image.exists():
        raise UserError(f"{image} does not exist: build the DSP image first with "
                        f"`tools/converter.py build --config {config.path}`")
    return [f"--dsp_image={image}"]


def gpu_flags(model: ModelConfig, run_dir: Path) -> list[str]:
    """mace_run's flags for a GPU run of `model`: its image storage, any
    OpenCL device when there is no GPU (PoCL's CPU device on a build host),
    a program cache beside the run's files, and the kernel time limit."""
    flags = [f"--gpu_data_type={model.data_type}", "--opencl_device_fallback",
             f"--opencl_cache_file={run_dir / f'opencl_program_{model.data_type}.bin'}"]
    if model.limit_opencl_kernel_time:
        flags.append("--limit_opencl_kernel_time")
    return flags


def _environment(device: str) -> dict[str, str]:
    environment = dict(os.environ)
    if device == "gpu" and "POCL_CACHE_DIR" not in environment:
        try:
            POCL_CACHE.mkdir(parents=True, exist_ok=True)
            environment["POCL_CACHE_DIR"] = str(POCL_CACHE)
        except OSError:
            pass    # PoCL then uses its own default
    return environment


def parse_latency(stdout: str) -> dict[str, float]:
    latency = {}
    for line in stdout.splitlines():
        for key, pattern in _LATENCY.items():
            match = pattern.match(line.strip())
            if match:
                latency[key] = float(match.group(1))
    return latency


def latency_line(latency: dict[str, float], rounds: int) -> str:
    text = (f"latency: init {latency.get('init_ms', float('nan')):.2f} ms, "
            f"first run {latency.get('first_run_ms', float('nan')):.2f} ms")
    if "median_ms" in latency:
        text += (f", median {latency['median_ms']:.2f} ms over {rounds} run(s) "
                 f"(min {latency['min_ms']:.2f}, max {latency['max_ms']:.2f})")
    return text


def output_summary(name: str, array: np.ndarray) -> str:
    """Top-5 for a classifier-like output ([1, K] or [K] with K >= 5), else stats."""
    flat = array.reshape(-1)
    shape = list(array.shape)
    if flat.size >= 5 and flat.size == shape[-1]:
        top = np.argsort(-flat, kind="stable")[:5]
        ranked = ", ".join(f"{int(i)} ({flat[i]:.4g})" for i in top)
        return f"output {name} {shape}: top-5 {ranked}"
    return (f"output {name} {shape}: min {flat.min():.4g}, max {flat.max():.4g}, "
            f"mean {flat.mean():.4g}")


def _load_tensor(path: Path, shape: list[int], config: DeploymentConfig,
                 model: ModelConfig, dtype: str) -> np.ndarray:
    """A validation file's values for an input of type `dtype`."""
    key = f"models.{model.name}.validation_inputs_data"
    try:
        array = np.load(path) if path.suffix == ".npy" else np.fromfile(path, dtype="<f4")
    except (OSError, ValueError) as error:
        raise config.error(key, f"cannot read {path}: {error}") from None
    if array.size != int(np.prod(shape)):
        raise config.error(key, f"{path} holds {array.size} values; the input shape "
                                f"{shape} needs {int(np.prod(shape))}")
    if array.dtype == np.uint8 and model.quantize is not None and model.quantize.uint8_io:
        # Already quantized for a uint8 input: fed as it is (run_model).
        return array.reshape(shape)
    if dtype in input_values.INTEGER_TYPES:
        return input_values.as_type(array, dtype, path.name).reshape(shape)
    return array.astype(np.float32).reshape(shape)


def _shapes(specs) -> str:
    return ":".join(",".join(str(d) for d in spec.shape) for spec in specs)


def safe_name(name: str) -> str:
    """mace_run's file name for a tensor name."""
    return name.replace("/", "_").replace(":", "_").replace(" ", "_")
