"""tools/peer_bench.py: prepare every model, time every engine in its own
process with a rotating order, check outputs, write the report."""
from __future__ import annotations

import dataclasses
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.progress import REPO, UserError, shell_text
from mace_tools.avx2_cap import CapError
from mace_tools.peer_bench import cap, dynamic, int8, machine, mace_engine, peak, report
from mace_tools.peer_bench.children import ChildResult, run_child
from mace_tools.peer_bench.inputs import describe, feed_arguments
from mace_tools.peer_bench.options import (COSINE_THRESHOLD, ENGINES, QUANTIZED_ENGINES,
                                           TRANSFORMER_MODELS, UINT8_COSINE_THRESHOLD,
                                           Options, parse_args)
from mace_tools.peer_bench.prepare import (INSTALL, NCNN_OUTPUT, REQUIREMENTS, PreparedModel,
                                           missing_packages, prepare)
from mace_tools.peer_bench.results import FAILED, OK, UNCHECKED, WRONG, EngineRun, combine
from mace_tools.peer_bench.stats import cosine, rotated, summarize

PROFILE_ROUNDS = 10
MACE_ENGINES = ("mace", "mace_base", "mace_u8", "mace_dq")


def log(text: str = "") -> None:
    print(text, flush=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    options = parse_args(arguments)
    missing = missing_packages(options.engines)
    if missing:
        print(f"error: {', '.join(missing)} not installed; the peers are pinned in "
              f"{REQUIREMENTS}: {INSTALL} (or leave engines out with --engines)",
              file=sys.stderr)
        return 2
    start = time.monotonic()
    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    load_start = machine.load_average()
    log(f"peer_bench: {', '.join(options.models)}; engines {', '.join(options.engines)}; "
        f"threads {', '.join(map(str, options.threads))}; {options.rounds} rounds; "
        f"input seed {options.seed}; load average {load_start[0]:.2f}")
    try:
        models = []
        for name in options.models:
            log(f"==> prepare {name}")
            models.append(prepare(name, options, log))
        if options.avx2_cap:
            log("==> AVX2 cap (cpuid as on an AVX2-only host)")
            options.cap = cap.prepare_cap(options.engines, options.work_dir.resolve() / "avx2_cap",
                                          log)
        fma_peak, peak_error = measure_peak(options)
        runs = time_all(models, options)
        profiles = op_profiles(models, options) if options.op_profile else {}
    except (UserError, ConversionError, CapError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    info = report.RunInfo(
        command=shell_text(["tools/peer_bench.py", *arguments]), started=started,
        duration_s=time.monotonic() - start, cpu_model=machine.cpu_model(),
        cores=os.cpu_count() or 0,
        isa=cap.visible_flags(machine.isa_flags()) if options.cap else machine.isa_flags(),
        load_start=load_start,
        load_end=machine.load_average(), versions=machine.versions(options.engines),
        seed=options.seed, rounds=options.rounds, repeats=options.repeats,
        models=options.models, engines=options.engines, threads=options.threads,
        fma_peak=fma_peak, peak_error=peak_error,
        multiply_adds=model_multiply_adds(models) if fma_peak else {},
        avx2_cap=options.cap is not None)
    info.notes = notes(info, models, options)
    path = options.report if options.report.is_absolute() else REPO / options.report
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.markdown(info, runs, profiles))
    json_path = path.with_suffix(".json")
    json_path.write_text(report.json_text(info, runs, profiles))
    for _, group in report.model_groups(info.models):
        log("")
        log(report.latency_table(info, runs, group))
        for line in report.ratio_summary(info, runs, group):
            log(line)
    log("\npeak memory (MiB):")
    log(report.memory_table(info, runs))
    for line in report.peak_summary(info, runs, profiles):
        log(line)
    if options.uint8:
        log("")
        log(report.uint8_table(info, runs))
        for line in report.uint8_summary(info, runs):
            log(line)
    if options.dynamic_int8:
        log("")
        log(report.dynamic_table(info, runs))
        for line in report.dynamic_summary(info, runs):
            log(line)
    log(f"\nreport: {path}\nraw numbers: {json_path}\n"
        f"peer_bench: done in {report.fmt_duration(info.duration_s)}")
    return 0


def measure_peak(options: Options) -> tuple[Optional[peak.FmaPeak], str]:
    """The one-core FMA peak, once per run, before the engines are timed."""
    if not options.fma_peak or "mace" not in options.engines or 1 not in options.threads:
        return None, "skipped (--no-fma-peak)" if not options.fma_peak else ""
    log("==> FMA peak (one core, widest instruction set"
        + (" under the AVX2 cap)" if options.cap else ")"))
    build = not options.skip_mace_build and options.mace_runner is None
    found, error = peak.measure(build, options.timeout, log, options.cap)
    if error:
        log(f"    FMA peak not measured: {error}")
    return found, error


def model_multiply_adds(models: list[PreparedModel]) -> dict[str, int]:
    counts = {}
    for model in models:
        count = peak.multiply_adds(model.onnx)
        if count:
            counts[model.name] = count
    return counts


def time_all(models: list[PreparedModel], options: Options) -> list[EngineRun]:
    total = len(models) * len(options.threads) * options.repeats * len(options.engines)
    done = 0
    cell = 0
    runs: list[EngineRun] = []
    baselines: dict[Path, Optional[float]] = {}
    for model in models:
        reference, why = reference_output(model, options)
        if reference is None:
            log(f"    reference: {why}")
        for threads in options.threads:
            per_engine: dict[str, list[EngineRun]] = defaultdict(list)
            for repeat in range(options.repeats):
                for engine in rotated(options.engines, cell + repeat):
                    done += 1
                    run = run_engine(model, engine, threads, repeat, options, baselines)
                    check(run, model, engine, threads, repeat, reference, why, options)
                    per_engine[engine].append(run)
                    log(progress_line(done, total, run))
            cell += 1
            runs += [combine(per_engine[engine]) for engine in options.engines]
    return runs


def reference_output(model: PreparedModel,
                     options: Options) -> tuple[Optional[np.ndarray], str]:
    out = model.directory / "runs" / "reference"
    _, error = _worker(model, "reference", 1, 0, out, options)
    if error:
        return None, f"onnxruntime could not make the reference output: {error}"
    return np.load(out.with_suffix(".npy")), ""


def run_engine(model: PreparedModel, engine: str, threads: int, repeat: int,
               options: Options, baselines: dict[Path, Optional[float]]) -> EngineRun:
    run = EngineRun(model=model.name, engine=engine, threads=threads)
    failed = model.errors.get("mace" if engine == "mace_base" else engine)
    if failed:
        run.error = failed
        return run
    if engine in MACE_ENGINES:
        return _run_mace(model, run, options, baselines)
    out = model.directory / "runs" / f"{engine}_t{threads}_r{repeat}"
    result, error = _worker(model, engine, threads, options.rounds, out, options)
    if error:
        run.error = error
        return run
    numbers = json.loads(out.with_suffix(".json").read_text())
    summary = summarize(numbers["latencies_ms"])
    run.status = UNCHECKED
    run.init_ms, run.first_run_ms = numbers["init_ms"], numbers["first_run_ms"]
    run.median_ms, run.min_ms, run.max_ms = summary.median, summary.min, summary.max
    run.rounds = summary.count
    peak_kib = max(numbers["peak_rss_kib"], result.peak_rss_kib)
    run.peak_rss_mib = peak_kib / 1024.0 if peak_kib else None
    run.base_rss_mib = numbers["base_rss_kib"] / 1024.0 if numbers["base_rss_kib"] else None
    return run


def check(run: EngineRun, model: PreparedModel, engine: str, threads: int, repeat: int,
          reference: Optional[np.ndarray], why: str, options: Options) -> None:
    """Compares the run's output with the reference and sets its status."""
    if run.status == FAILED:
        return
    if reference is None:
        run.status, run.error = UNCHECKED, why
        return
    try:
        output = _output(model, engine, threads, repeat, options)
        run.cosine = cosine(output, reference)
    except (OSError, ValueError) as error:
        run.status, run.error = WRONG, f"output not comparable: {error}"
        return
    threshold = UINT8_COSINE_THRESHOLD if engine in QUANTIZED_ENGINES else COSINE_THRESHOLD
    if run.cosine > threshold:
        run.status = OK
    else:
        run.status = WRONG
        run.error = f"cosine {run.cosine:.6f} against onnxruntime (needs > {threshold})"


def op_profiles(models: list[PreparedModel],
                options: Options) -> dict[str, list[report.OpShare]]:
    profiles = {}
    for model in models:
        if model.mace is None or "mace" not in options.engines:
            continue
        log(f"==> MACE op profile of {model.name} (1 thread, {PROFILE_ROUNDS} rounds)")
        command = mace_engine.command(model.mace, 1, PROFILE_ROUNDS,
                                      options.cpu_affinity_policy, profile=True)
        result, cap_error = _run_capped(command, options, "mace_run")
        if cap_error:
            log(f"    no per-op table: {cap_error}")
            continue
        shares = mace_engine.op_shares(result.stdout) if result.returncode == 0 else []
        if shares:
            profiles[model.name] = shares
            log(report.op_profile_section({model.name: shares})[0])
        else:
            log(f"    no per-op table: {result.last_line()}")
    return profiles


def notes(info: report.RunInfo, models: list[PreparedModel], options: Options) -> list[str]:
    found = []
    if options.cap is not None:
        runners = sum(count for _, count in options.cap.runners.values())
        found.append("AVX2 cap (`--avx2-cap`): every engine process, the reference and the FMA "
                     "peak ran with cpuid answered as on an AVX2-only host "
                     "(tools/x86/avx2_cap.c hides AVX-512, AVX-VNNI, AVX10 and AMX), so each "
                     "engine ran the kernels it picks there; "
                     f"{options.cap.rewritten} cpuid instruction(s) rewritten in the peers' "
                     f"libraries and {runners} in MACE's binaries, and every process asked the "
                     "cap. The core, its caches and clock are this host's.")
    if "mace" in info.engines:
        if any(isa.startswith("avx512") for isa in info.isa):
            found.append("This CPU has AVX-512. MACE's GEMM (Conv2D, FullyConnected, MatMul), "
                         "Winograd transforms and 3x3 depthwise kernels use it; its pooling and "
                         "eltwise kernels are AVX2 + FMA, while the peers may use AVX-512 there "
                         "too.")
        code = [m.name for m in models if m.config.build_type == "code"]
        if code:
            found.append(f"{', '.join(code)}: code-mode deployment files; mace_run runs the "
                         "same NetDef and weights from the build's work directory, as "
                         "`tools/converter.py run` does.")
        # Winograd is about 3x3 convolutions: the transformers are left out.
        convolutional = [m for m in models if m.name not in TRANSFORMER_MODELS]
        plain = [m.name for m in convolutional if m.model.winograd == 0]
        tiled = [m.name for m in convolutional if m.model.winograd != 0]
        if tiled:
            found.append(f"MACE runs the deployment files as they are: {', '.join(tiled)} "
                         "allow Winograd (`winograd: 2` or `4`), and the runtime picks it, "
                         "or im2col, per 3x3 stride-1 layer by its cost model.")
        if plain:
            found.append(f"MACE runs the deployment files as they are: {', '.join(plain)} "
                         "say `winograd: 0`, so Winograd is off for their 3x3 convolutions.")
        found.append(f"MACE threads: mace_run --omp_num_threads=N --cpu_affinity_policy="
                     f"{options.cpu_affinity_policy}; its pool counts the calling thread.")
    found += input_notes(models, info.engines, options)
    if "ort" in info.engines:
        found.append("onnxruntime: CPU execution provider, intra_op_num_threads=N, "
                     "inter_op_num_threads=1, sequential execution, ORT_ENABLE_ALL.")
    if "ncnn" in info.engines or "ncnn_default" in info.engines:
        found.append("ncnn: converted from ONNX by pnnx (fp16=0, fp32 weights); "
                     "opt.num_threads=N, light mode; fp16 and bf16 storage, packing and "
                     "arithmetic off. `ncnn defaults` keeps ncnn's default options (fp16 "
                     "where the CPU supports it): shown for reference, never the fastest "
                     "peer.")
        patched = [m.name for m in models if m.ncnn and (m.directory / "ncnn" /
                                                        "model.splits.onnx").exists()]
        if patched:
            found.append(f"ncnn, {', '.join(patched)}: pnnx drops the sizes of ONNX Splits "
                         "that split evenly (ncnn then crashes), so the model pnnx converts "
                         "gives them explicit sizes first; the math is unchanged.")
    if "mnn" in info.engines:
        found.append("MNN: converted from ONNX by MNNConvert (fp32 weights); Module API, "
                     "CPU backend, numThread=N, precision normal (fp32 on this CPU).")
    if "litert" in info.engines:
        found.append("LiteRT: the ONNX file converted by onnx2tf to a float32 .tflite "
                     "(channels-last); the interpreter with num_threads=N and its default "
                     "XNNPACK delegate. Inputs are transposed to channels-last before the "
                     "runs.")
    if options.uint8:
        found += uint8_notes(info)
        fallback = [m.name for m in models
                    if m.mnn_int8_method not in (None, int8.MNN_FEATURE_METHODS[0])]
        if fallback:
            found.append(f"MNN int8, {', '.join(fallback)}: mnnquant's "
                         f"{int8.MNN_FEATURE_METHODS[0]} failed, so its ranges are "
                         f"{int8.MNN_FEATURE_METHODS[1]}.")
    if options.dynamic_int8:
        found += dynamic_notes(info)
    return found


def input_notes(models: list[PreparedModel], engines: Sequence[str],
                options: Options) -> list[str]:
    """How the inputs of models with integer or several inputs were drawn,
    and how the peers that take no int64 get them."""
    found = []
    for model in models:
        if len(model.inputs) == 1 and model.inputs[0].dtype == "float32":
            continue
        found.append(f"{model.name} inputs, drawn as `tools/converter.py run` draws them "
                     f"(seed {options.seed}): {describe(model.inputs)}.")
    if found and any(e in engines for e in ("ncnn", "ncnn_default")):
        found.append("ncnn gets integer inputs (token ids, masks) as float blobs.")
    if found and "mnn" in engines:
        found.append("MNN gets integer inputs as int32.")
    return found


def uint8_notes(info: report.RunInfo) -> list[str]:
    found = [f"uint8: the quantizers calibrate on the same {int8.CALIBRATION_COUNT} inputs, "
             f"uniform in the input range (seeds {info.seed + 1} to "
             f"{info.seed + int8.CALIBRATION_COUNT}), not the timed input; the zoo models "
             f"have seeded weights, so accuracy says little (see docs/how-to/quantize.md). "
             f"Quantized outputs pass at cosine > {UINT8_COSINE_THRESHOLD} against the float "
             "reference."]
    if "mace_u8" in info.engines:
        found.append("MACE uint8: the zoo model's deployment file with quantize: 1 and "
                     "calibration_inputs (in --work-dir, <model>/mace_u8/), min/max "
                     "ranges; ops without a uint8 kernel stay float.")
    if "ort_qdq" in info.engines:
        found.append(f"ORT QDQ: onnxruntime.quantization.quantize_static ({int8.ORT_SETTINGS}) "
                     "run with the same session options as ORT.")
    if "mnn_int8" in info.engines:
        found.append(f"MNN int8: {int8.MNN_SETTINGS} (pixel = value rounded to 256 levels "
                     "over the input range; mean and normal map it back), run with the same "
                     "runtime options as MNN.")
    found.append(int8.NO_NCNN_INT8)
    return found


def dynamic_notes(info: report.RunInfo) -> list[str]:
    found = [f"dyn int8: no calibration; the zoo models have seeded weights, so accuracy "
             f"says little (see docs/how-to/quantize.md). Outputs pass at cosine > "
             f"{UINT8_COSINE_THRESHOLD} against the float reference."]
    if "mace_dq" in info.engines:
        found.append(f"MACE dyn int8: {dynamic.MACE_SETTINGS}.")
    if "ort_dq" in info.engines:
        found.append("ORT dyn int8: onnxruntime.quantization.quantize_dynamic "
                     f"({dynamic.ORT_SETTINGS}), run with the same session options as ORT.")
    return found


def progress_line(done: int, total: int, run: EngineRun) -> str:
    head = (f"  [{done:>{len(str(total))}}/{total}] {run.model:<18} {run.threads} thr  "
            f"{ENGINES[run.engine]:<14}")
    if run.status == FAILED:
        return f"{head} FAILED: {run.error}"
    text = (f"{head} median {report.fmt_ms(run.median_ms):>7} ms  "
            f"init {report.fmt_ms(run.init_ms):>7} ms  peak {report.fmt_mib(run.peak_rss_mib)} "
            f"MiB")
    if run.cosine is not None:
        text += f"  cosine {run.cosine:.6f}"
    return text + (f"  {run.status.upper()}: {run.error}" if run.status != OK else "")


def _run_mace(model: PreparedModel, run: EngineRun, options: Options,
              baselines: dict[Path, Optional[float]]) -> EngineRun:
    mace = _mace_model(model, run.engine, options)
    if mace.runner not in baselines:
        baselines[mace.runner] = _bare_rss_mib(mace.runner)
    for stale in mace.output_prefix.parent.glob(f"{mace.output_prefix.name}_*.npy"):
        stale.unlink()
    command = mace_engine.command(mace, run.threads, options.rounds,
                                  options.cpu_affinity_policy)
    result, cap_error = _run_capped(command, options, "mace_run")
    if cap_error:
        run.error = cap_error
        return run
    if result.returncode != 0 or result.timed_out:
        run.error = "mace_run: " + result.last_line().removeprefix("mace_run: error: ")
        return run
    latency = mace_engine.latency(result.stdout)
    if "median_ms" not in latency:
        run.error = "mace_run printed no latency"
        return run
    run.status = UNCHECKED
    run.init_ms, run.first_run_ms = latency.get("init_ms"), latency.get("first_run_ms")
    run.median_ms, run.min_ms = latency["median_ms"], latency.get("min_ms")
    run.max_ms, run.rounds = latency.get("max_ms"), options.rounds
    run.peak_rss_mib = result.peak_rss_kib / 1024.0 if result.peak_rss_kib else None
    run.base_rss_mib = baselines[mace.runner]
    return run


def _run_capped(command: list[str], options: Options, what: str, cwd: Optional[Path] = None,
                env: Optional[dict[str, str]] = None) -> tuple[ChildResult, str]:
    """Runs one engine process, under the AVX2 cap when it is on (a
    rewritten copy of an executable that is not the Python interpreter);
    returns the result and an error when the cap answered no cpuid."""
    if options.cap is None:
        return run_child(command, cwd=cwd, env=env, timeout=options.timeout), ""
    if command[0] != sys.executable:
        command = [str(options.cap.binary(Path(command[0]))), *command[1:]]
    result = run_child(command, cwd=cwd, env=options.cap.environment(env),
                       timeout=options.timeout)
    return cap.check_emulated(result, what)


def _bare_rss_mib(runner: Path, timeout: float = 30.0) -> Optional[float]:
    """mace_run's footprint before it reads a model (the binary and its
    libraries), to split its peak the way the peers' is split: its maximum
    RSS when it stops at a missing model file, as GNU time reports it. time
    forks the runner from its own small process, so the number is the
    runner's alone (the rusage this process sees would include its own
    memory, which exec records)."""
    gnu_time = shutil.which("time") or "/usr/bin/time"
    if not Path(gnu_time).exists():
        return None
    with tempfile.TemporaryDirectory() as directory:
        report_file = Path(directory) / "rss"
        try:
            subprocess.run([gnu_time, "-f", "%M", "-o", str(report_file), str(runner),
                            f"--model_file={Path(directory) / 'missing.pb'}"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, timeout=timeout, check=False)
            lines = report_file.read_text().split()
            kib = int(lines[-1]) if lines else 0
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return None
    return kib / 1024.0 if kib else None


def _worker(model: PreparedModel, engine: str, threads: int, rounds: int, out: Path,
            options: Options) -> tuple[Optional[ChildResult], str]:
    """Runs the worker; returns its result and an error ('' when it worked)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    for suffix in (".npy", ".json"):
        out.with_suffix(suffix).unlink(missing_ok=True)
    command, env = worker_command(model, engine, threads, rounds, out)
    result, cap_error = _run_capped(command, options, f"the {engine} worker",
                                    cwd=model.directory, env=env)
    if cap_error:
        return result, cap_error
    if result.returncode != 0 or result.timed_out or not out.with_suffix(".json").exists():
        return result, result.last_line().removeprefix("error: ")
    return result, ""


def worker_command(model: PreparedModel, engine: str, threads: int, rounds: int,
                   out: Path) -> tuple[list[str], dict[str, str]]:
    """The worker process for a peer engine (run in model.directory), and its
    environment; it writes out's .npy and .json."""
    names = [model_input.name for model_input in model.inputs]
    if engine in ("ort", "reference", "ort_qdq", "ort_dq"):
        source = {"ort_qdq": model.ort_qdq, "ort_dq": model.ort_dq}.get(engine, model.onnx)
        files = ["--model", str(source), "--output-name", model.output_name]
    elif engine in ("ncnn", "ncnn_default"):
        assert model.ncnn is not None
        files = ["--model", str(model.ncnn[0]), "--weights", str(model.ncnn[1]),
                 "--output-name", NCNN_OUTPUT]
        names = model.ncnn_input_names()
    elif engine == "litert":
        assert model.litert is not None
        shape = ",".join(str(d) for d in model.model.outputs[0].shape)
        files = ["--model", str(model.litert), "--output-name", model.output_name,
                 "--output-shape", shape]
    else:
        source = model.mnn_int8 if engine == "mnn_int8" else model.mnn
        files = ["--model", str(source), "--output-name", model.output_name]
    # The quantized models run with the same session options as the float ones.
    worker = {"ort_qdq": "ort", "ort_dq": "ort", "mnn_int8": "mnn"}.get(engine, engine)
    command = [sys.executable, "-m", "mace_tools.peer_bench.worker", worker, *files,
               *feed_arguments(names, model.inputs), "--threads", str(threads),
               "--rounds", str(rounds), "--output", str(out.with_suffix(".npy")),
               "--result", str(out.with_suffix(".json"))]
    python_path = str(REPO / "tools" / "python")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (python_path, os.environ.get("PYTHONPATH", "")) if p))
    return command, env


def _mace_model(model: PreparedModel, engine: str,
                options: Options) -> mace_engine.MaceModel:
    """The converted model as `engine` runs it: the baseline engine runs the
    same files with another build's mace_run and writes its own outputs;
    mace_u8 and mace_dq run their quantized builds."""
    quantized = {"mace_u8": model.mace_u8, "mace_dq": model.mace_dq}
    if engine in quantized:
        found = quantized[engine]
        assert found is not None
        return found
    assert model.mace is not None
    if engine != "mace_base":
        return model.mace
    assert options.baseline_runner is not None
    return dataclasses.replace(model.mace, runner=options.baseline_runner,
                               output_prefix=model.mace.output_prefix.with_name("baseline"))


def _output(model: PreparedModel, engine: str, threads: int, repeat: int,
            options: Options) -> np.ndarray:
    if engine in MACE_ENGINES:
        return mace_engine.read_output(_mace_model(model, engine, options))
    return np.load(model.directory / "runs" / f"{engine}_t{threads}_r{repeat}.npy")

