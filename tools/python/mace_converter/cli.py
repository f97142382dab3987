"""tools/converter.py: convert, build, run and benchmark the models of a
deployment file. See docs/how-to/convert.md."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from mace_converter import (benchmark, build, codegen, conversion, kernel_families,
                             layer_validate, op_registry, package, run, validate)
from mace_converter.api import ConversionError
from mace_converter.config import DeploymentConfig, ModelConfig, load_config
from mace_converter.progress import REPO, UserError, say, step

DEFAULT_CONFIG = "models/mobilenet_v2.yml"


def main(argv: Optional[list[str]] = None) -> int:
    args = _parser().parse_args(argv)
    start = time.monotonic()
    try:
        status = args.handler(args)
    except (UserError, ConversionError) as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    say(f"{args.command}: {'done' if status == 0 else 'FAILED'} in "
        f"{time.monotonic() - start:.1f} s")
    return status


# ---- commands ----------------------------------------------------------------


def cmd_convert(args: argparse.Namespace) -> int:
    config = _load(args)
    _convert(config, config.select(args.model_name))
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    config = _load(args)
    abis = config.abis(args.target_abi)
    for abi in abis:
        build.check_toolchain(abi)
    build.check_dsp_toolchain(config)
    _convert(config, config.select(args.model_name))
    package.install_headers(config)
    for abi in abis:
        package.install_abi(config, build.bazel_build(config, abi))
        package.tune_opencl(config, abi, package.mace_run_path(config, abi))
    package.pack_aar(config)
    package.make_tarball(config)
    root = package.library_dir(config)
    say(f"library: {root}")
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        say(f"    {path.relative_to(root)}  ({path.stat().st_size:,} bytes)")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    config = _load(args)
    options = _run_options(args, benchmark=False)
    failures: list[str] = []
    for model in config.select(args.model_name):
        artifacts = conversion.load_artifacts(config, model)
        inputs, origin = run.make_inputs(config, model, artifacts)
        say(f"model {model.name}: inputs {origin}")
        references: dict = {}  # description and outputs, once per model
        for abi in config.abis(args.target_abi):
            for device in model.devices():
                result = _run_one(config, model, artifacts, abi, device, inputs, options)
                if result is None:
                    continue
                for name, array in result.outputs.items():
                    say(f"    {run.output_summary(name, array)}")
                say(f"    {run.latency_line(result.latency, options.round)}")
                if options.memory_report:
                    for line in _memory_summary(result.stdout):
                        say(f"    {line}")
                if args.validate or args.validate_layers:
                    failures += _validate(model, artifacts, abi, device, inputs, result,
                                          references, config, layers=args.validate_layers)
    if failures:
        print(f"error: validation failed for {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


def _validate(model: ModelConfig, artifacts, abi: str, device: str, inputs,
              result: run.RunResult, references: dict,
              config: Optional[DeploymentConfig] = None, layers: bool = False) -> list[str]:
    """Compares each output with the source framework; returns the failures.
    With `layers`, or when an output fails, also compares the intermediate
    tensors and names the first op that diverges (layer_validate.py)."""
    failures = []
    with step(f"validate {model.name} ({abi}, {device})"):
        if not references:
            # Computed once, shared by every ABI and runtime; each one's
            # validation still says what it was compared with.
            references["description"], references["outputs"] = validate.reference_outputs(
                model, artifacts, inputs)
        say(f"    reference: {references['description']}")
        threshold = validate.cosine_threshold(device, model.device_data_type(device))
        for spec in model.outputs:
            comparison = validate.compare(spec.name, result.outputs[spec.name],
                                          references["outputs"][spec.name], threshold)
            say(f"    {comparison.line()}")
            if not comparison.passed:
                failures.append(f"{model.name}/{spec.name} ({abi}, {device})")
        if config is not None and (layers or failures):
            layer_validate.check(config, model, artifacts, abi, device, inputs, threshold,
                                 references)
        if device == "dsp":
            failures += _same_as_cpu(config, model, artifacts, abi, inputs, result)
        if config is not None and model.quantize is not None and model.quantize.uint8_io:
            failures += validate.check_float_io_twin(config, model, artifacts, abi, device,
                                                     inputs, result, references)
        if config is not None and model.quantize is not None:
            from mace_converter.quantize import agreement
            options = run.RunOptions()
            agreement.check(
                model=model, config=config, say=say,
                run_one=lambda x: run.run_model(config, model, artifacts, abi, device, x,
                                                options, echo=False).outputs,
                reference=lambda x: validate.reference_outputs(model, artifacts, x)[1])
    return failures


def _same_as_cpu(config: Optional[DeploymentConfig], model: ModelConfig, artifacts, abi: str,
                 inputs, result: run.RunResult) -> list[str]:
    """The DSP's outputs must equal the CPU uint8 engine's bit for bit."""
    if config is None:
        return []
    cpu = run.run_model(config, model, artifacts, abi, "cpu", inputs, run.RunOptions(),
                        echo=False).outputs
    failures = []
    for spec in model.outputs:
        dsp_out, cpu_out = result.outputs[spec.name], cpu[spec.name]
        same = dsp_out.shape == cpu_out.shape and np.array_equal(dsp_out, cpu_out)
        if same:
            say(f"    {spec.name}: bit-identical to the CPU uint8 engine  PASS")
        else:
            differ = int(np.count_nonzero(dsp_out.reshape(-1) != cpu_out.reshape(-1))) \
                if dsp_out.size == cpu_out.size else dsp_out.size
            say(f"    {spec.name}: {differ} of {cpu_out.size} values differ from the CPU "
                f"uint8 engine  FAIL")
            failures.append(f"{model.name}/{spec.name} ({abi}, dsp vs cpu)")
    return failures


def cmd_benchmark(args: argparse.Namespace) -> int:
    config = _load(args)
    options = _run_options(args, benchmark=True)
    for model in config.select(args.model_name):
        artifacts = conversion.load_artifacts(config, model)
        inputs, origin = run.make_inputs(config, model, artifacts)
        say(f"model {model.name}: inputs {origin}")
        for abi in config.abis(args.target_abi):
            for device in model.devices():
                result = _run_one(config, model, artifacts, abi, device, inputs, options)
                if result is None:
                    continue
                if device == "dsp":
                    # One call runs the whole graph on the DSP: no per-op times.
                    say(f"    {run.latency_line(result.latency, options.round)}")
                    say("    the DSP runs the graph as a whole: no per-op times "
                        "(docs/design/dsp.md counts its instructions per inference)")
                    continue
                ops = benchmark.parse_op_table(result.stdout)
                if not ops:
                    raise UserError("mace_run --benchmark printed no per-op table")
                say(f"    {run.latency_line(result.latency, options.round)}")
                say("")
                say(benchmark.format_tables(ops, top=args.top))
                say("")
    return 0


# ---- helpers -----------------------------------------------------------------


def _load(args: argparse.Namespace) -> DeploymentConfig:
    path = Path(args.config)
    if not path.is_absolute() and not path.exists() and (REPO / path).exists():
        path = REPO / path
    config = load_config(path)
    say(f"{args.command}: {path} (library {config.library_name}, build_type "
        f"{config.build_type}, ABIs {', '.join(config.target_abis)}, "
        f"models {', '.join(config.models)})")
    return config


def _convert(config: DeploymentConfig, models: list[ModelConfig]) -> None:
    for model in models:
        if model.nnlib_graph_mode:
            say(f"note: models.{model.name}.nnlib_graph_mode is accepted but has no effect: "
                "the DSP runs the whole graph (docs/design/dsp.md)")
        if model.limit_opencl_kernel_time and model.runtime not in ("gpu", "cpu+gpu"):
            say(f"note: models.{model.name}.limit_opencl_kernel_time has no effect on "
                f"runtime {model.runtime}")
    artifacts = conversion.convert_models(config, models)
    package.install_models(config, artifacts)
    if config.model_specific_library:
        _write_op_registry(config, artifacts)
    if config.build_type == "code":
        codegen.generate(config, artifacts)


def _write_op_registry(config: DeploymentConfig, artifacts: dict) -> None:
    """The registry of the models converted for the library (with
    --model_name, that one model's)."""
    graphs = [model.pb for model in artifacts.values()]
    with step(f"generate the op registry of {', '.join(sorted(artifacts))}"):
        engine = "//mace/libmace:engine_cpu" if build.cpu_only(config) \
            else "//mace/libmace:engine"
        types = op_registry.write(config.library_name, graphs, engine, config.c_api)
        say(f"    {len(types)} op types: {', '.join(types)}")
        families: set[str] = set()
        for name, model in artifacts.items():
            cpu_fp16 = config.models[name].device_data_type("cpu") == "fp16_fp16"
            families |= kernel_families.graph_families(model.pb, cpu_fp16)
        kernel_families.write(op_registry.REGISTRY_DIR, families)
        say(f"    CPU kernel families beyond gemm and rows: "
            f"{', '.join(sorted(families)) or 'none'}")


def _run_one(config: DeploymentConfig, model: ModelConfig, artifacts, abi: str, device: str,
             inputs, options: run.RunOptions) -> Optional[run.RunResult]:
    if device == "dsp" and abi != "host":
        say(f"note: {model.name} on dsp ({abi}): the emulated DSP is started from the host "
            "ABI's mace_run only; skipped")
        return None
    with step(f"run {model.name} on {device} ({abi}), {options.round} round(s)"):
        say(f"    device: {run.device_description(abi)}")
        if config.build_type == "code":
            say("    code mode: mace_run runs the same NetDef and weights that are compiled "
                "into the library, from the build's work directory")
        try:
            return run.run_model(config, model, artifacts, abi, device, inputs, options)
        except run.RuntimeUnavailable as error:
            if model.runtime == "cpu+gpu":
                reason, *details = str(error).splitlines()
                say(f"    note: {reason}; skipped")
                for line in details:
                    say(f"        {line.strip()}")
                return None
            raise


def _memory_summary(stdout: str) -> list[str]:
    """mace_run's memory plan without the per-tensor list."""
    lines = stdout.splitlines()
    for start, line in enumerate(lines):
        if line.startswith("memory plan"):
            summary = []
            for each in lines[start:]:
                if each.strip().startswith("tensor "):
                    break
                summary.append(each)
            return summary
    return []


def _run_options(args: argparse.Namespace, benchmark: bool) -> run.RunOptions:
    return run.RunOptions(round=args.round, restart_round=args.restart_round,
                          omp_num_threads=args.omp_num_threads,
                          cpu_affinity_policy=args.cpu_affinity_policy,
                          gpu_perf_hint=args.gpu_perf_hint,
                          gpu_priority_hint=args.gpu_priority_hint, benchmark=benchmark,
                          memory_report=getattr(args, "memory_report", False))


def _bounded(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not in [{low}, {high}]")
        return value
    return parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="converter.py", description="Convert, build, run and benchmark the models of a "
        "MACE deployment file (YAML). See docs/how-to/convert.md.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    helps = {
        "convert": "convert the models to MACE (.pb + .data, or C++ code in code mode)",
        "build": "convert, then build libmace and mace_run for each ABI and package them",
        "run": "run the built models with mace_run; --validate compares with the source "
               "framework",
        "benchmark": "run with per-op timing; prints the ops sorted by time and per-type totals",
    }
    handlers = {"convert": cmd_convert, "build": cmd_build, "run": cmd_run,
                "benchmark": cmd_benchmark}
    for name, text in helps.items():
        sub = commands.add_parser(name, help=text, description=text)
        sub.set_defaults(handler=handlers[name])
        sub.add_argument("--config", default=DEFAULT_CONFIG,
                         help=f"the deployment file (default: {DEFAULT_CONFIG})")
        sub.add_argument("--model_name", help="only this model of the deployment file")
        if name == "convert":
            continue
        sub.add_argument("--target_abi", choices=["host", "arm64-v8a", "armeabi-v7a"],
                         help="only this ABI (one of the file's target_abis); ARM ABIs run "
                              "under qemu")
        if name == "build":
            continue
        sub.add_argument("--round", type=_bounded(1, 1000000),
                         default=1 if name == "run" else 10,
                         help="timed runs after the first (default: %(default)s)")
        sub.add_argument("--restart_round", type=_bounded(1, 10000), default=1,
                         help="times the engine is created again (default: 1)")
        sub.add_argument("--omp_num_threads", type=_bounded(-1, 256), default=-1,
                         help="CPU threads; -1 lets the affinity policy decide (default: -1)")
        sub.add_argument("--cpu_affinity_policy", type=_bounded(0, 2), default=1,
                         help="0 AFFINITY_NONE, 1 AFFINITY_BIG_ONLY, 2 AFFINITY_LITTLE_ONLY "
                              "(default: 1)")
        sub.add_argument("--gpu_perf_hint", type=_bounded(0, 3), default=3,
                         help="0 DEFAULT, 1 LOW, 2 NORMAL, 3 HIGH (default: 3)")
        sub.add_argument("--gpu_priority_hint", type=_bounded(0, 3), default=3,
                         help="0 DEFAULT, 1 LOW, 2 NORMAL, 3 HIGH (default: 3)")
        if name == "run":
            sub.add_argument("--validate", action="store_true",
                             help="compare the outputs with the source framework on the "
                                  "same inputs")
            sub.add_argument("--validate_layers", action="store_true",
                             help="validate, and compare every intermediate tensor the source "
                                  "model has too, naming the first op whose output diverges "
                                  "(ONNX models; done anyway when an output fails)")
            sub.add_argument("--memory_report", action="store_true",
                             help="also print mace_run's memory plan")
        else:
            sub.add_argument("--top", type=_bounded(0, 100000), default=0,
                             help="show only the N slowest ops (default: all)")
    return parser
