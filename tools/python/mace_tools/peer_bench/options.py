"""The command line of tools/peer_bench.py and what it selects."""
from __future__ import annotations

import argparse
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

if TYPE_CHECKING:
    from mace_tools.peer_bench.cap import Cap

# Zoo model (tools/python/zoo/make_zoo.py --only NAME) -> its deployment file.
CNN_MODELS = {
    "mobilenet_v1": "models/mobilenet_v1.yml",
    "mobilenet_v2": "models/mobilenet_v2.yml",
    "squeezenet1_1": "models/squeezenet1_1.yml",
    "resnet18": "models/resnet18.yml",
    "shufflenet_v2_x1_0": "models/shufflenet_v2.yml",
}
# The transformer encoders: BERT takes int64 token ids and an attention mask.
TRANSFORMER_MODELS = {
    "bert_torch": "models/bert_torch.yml",
    "bert_tf": "models/bert_tf.yml",
    "vit_tiny": "models/vit_tiny.yml",
    "whisper_tiny_encoder": "models/whisper_tiny_encoder.yml",
}
MODELS = {**CNN_MODELS, **TRANSFORMER_MODELS}
# --models also takes these group names; the report gives each group its
# own latency table.
MODEL_GROUPS = {"cnn": list(CNN_MODELS), "transformers": list(TRANSFORMER_MODELS)}
# The deployment file's model name, where it differs from the zoo's.
ALIASES = {"shufflenet_v2": "shufflenet_v2_x1_0"}

# Engine key -> column label. Order is the column order of the report.
ENGINES = {
    "mace": "MACE",
    "ort": "ORT",
    "ncnn": "ncnn",
    "mnn": "MNN",
    "litert": "LiteRT",
    "ncnn_default": "ncnn defaults",
    "mace_base": "MACE baseline",
    "mace_u8": "MACE uint8",
    "ort_qdq": "ORT QDQ",
    "mnn_int8": "MNN int8",
    "mace_dq": "MACE dyn int8",
    "ort_dq": "ORT dyn int8",
}
# Engines a plain run leaves out: the baseline needs --baseline-runner, the
# quantized ones --uint8 or --dynamic-int8.
OPT_IN_ENGINES = ("mace_base", "mace_u8", "ort_qdq", "mnn_int8", "mace_dq", "ort_dq")
# The peers MACE is compared with: all fp32. ncnn with its default options may
# store weights and activations in fp16, so it is shown but never "fastest".
PEERS = ("ort", "ncnn", "mnn", "litert")
# --uint8: the quantized engine that goes with each float one, and the int8
# peers MACE uint8 is compared with.
UINT8_ENGINES = {"mace": "mace_u8", "ort": "ort_qdq", "mnn": "mnn_int8"}
INT8_PEERS = ("ort_qdq", "mnn_int8")
# --dynamic-int8: the same for dynamically quantized linear layers.
DYNAMIC_INT8_ENGINES = {"mace": "mace_dq", "ort": "ort_dq"}
# Every engine whose output is checked at UINT8_COSINE_THRESHOLD.
QUANTIZED_ENGINES = (*UINT8_ENGINES.values(), *DYNAMIC_INT8_ENGINES.values())
DEFAULT_THREADS = [1, 2]

# A full run (every model, engine and thread count) refreshes the checked-in
# report; a partial one writes beside its work files unless --report says
# otherwise, so trying one model never overwrites the full tables.
DEFAULT_REPORT = Path("docs/reports/cpu_peers.md")
# A full run under --avx2-cap.
AVX2_CAP_REPORT = Path("docs/reports/cpu_peers_avx2.md")
PARTIAL_REPORT_NAME = "cpu_peers.md"
DEFAULT_SEED = 7767517
COSINE_THRESHOLD = 0.999
# A quantized model's output against the float reference (docs/how-to/quantize.md).
UINT8_COSINE_THRESHOLD = 0.98


@dataclass
class Options:
    models: list[str]
    engines: list[str]
    threads: list[int]
    rounds: int
    repeats: int
    seed: int
    report: Path
    skip_mace_build: bool
    op_profile: bool
    cpu_affinity_policy: int
    timeout: float
    work_dir: Path
    baseline_runner: Optional[Path] = None
    uint8: bool = False
    dynamic_int8: bool = False
    fma_peak: bool = True
    # A prebuilt mace_run: the models are converted, not built.
    mace_runner: Optional[Path] = None
    # Every engine answers cpuid as on an AVX2-only host (peer_bench/cap.py).
    avx2_cap: bool = False
    # Set by main once the cap's library and mirrored packages are ready.
    cap: Optional["Cap"] = None

    @property
    def json_path(self) -> Path:
        return self.report.with_suffix(".json")


def parse_args(argv: Optional[Sequence[str]] = None) -> Options:
    args = _parser().parse_args(argv)
    report = args.report
    if report is None:
        standard = set(ENGINES) - set(OPT_IN_ENGINES)
        full = (set(args.models) == set(MODELS) and set(args.engines) == standard
                and set(args.threads) == set(DEFAULT_THREADS) and args.baseline_runner is None)
        default = AVX2_CAP_REPORT if args.avx2_cap else DEFAULT_REPORT
        report = default if full else args.work_dir / PARTIAL_REPORT_NAME
    engines = args.engines
    if args.avx2_cap and platform.machine() != "x86_64":
        raise SystemExit(f"error: --avx2-cap rewrites x86-64 binaries; this is "
                         f"{platform.machine()}")
    if args.mace_runner is not None and not args.mace_runner.is_file():
        raise SystemExit(f"error: --mace-runner {args.mace_runner} is not a file")
    if args.mace_runner is not None and args.uint8:
        raise SystemExit("error: --uint8 builds the quantized models; it does not take "
                         "--mace-runner")
    if args.baseline_runner is not None:
        if not args.baseline_runner.is_file():
            raise SystemExit(f"error: --baseline-runner {args.baseline_runner} is not a file")
        if "mace" not in engines:
            raise SystemExit("error: --baseline-runner compares with MACE: keep mace in --engines")
        engines = [name for name in ENGINES if name in engines or name == "mace_base"]
    elif "mace_base" in engines:
        raise SystemExit("error: the mace_base engine needs --baseline-runner")
    engines = _quantized_engines(engines, args.uint8, "--uint8", UINT8_ENGINES, "MACE uint8")
    engines = _quantized_engines(engines, args.dynamic_int8, "--dynamic-int8",
                                 DYNAMIC_INT8_ENGINES, "MACE dyn int8")
    if args.dynamic_int8:
        convolutional = [name for name in args.models if name not in TRANSFORMER_MODELS]
        if convolutional:
            raise SystemExit(f"error: --dynamic-int8 quantizes the linear layers of the "
                             f"transformers; {', '.join(convolutional)} "
                             f"{'has' if len(convolutional) == 1 else 'have'} at most a "
                             "classifier: use --models transformers")
    return Options(models=args.models, engines=engines, threads=args.threads,
                   rounds=args.rounds, repeats=args.repeats, seed=args.seed,
                   report=report, skip_mace_build=args.skip_mace_build,
                   op_profile=not args.no_op_profile,
                   cpu_affinity_policy=args.cpu_affinity_policy, timeout=args.timeout,
                   work_dir=args.work_dir,
                   baseline_runner=args.baseline_runner.resolve() if args.baseline_runner
                   else None, uint8=args.uint8, dynamic_int8=args.dynamic_int8,
                   fma_peak=not args.no_fma_peak,
                   mace_runner=args.mace_runner.absolute() if args.mace_runner else None,
                   avx2_cap=args.avx2_cap)


def _quantized_engines(engines: list[str], wanted: bool, flag: str, twins: dict[str, str],
                       label: str) -> list[str]:
    """`engines` with the quantized twin (`twins`) of each float engine
    added when `flag` is given; a twin asked for without it, or the flag
    without mace, is an error."""
    asked = [name for name in engines if name in twins.values()]
    if asked and not wanted:
        raise SystemExit(f"error: the {', '.join(asked)} engine(s) need {flag}")
    if not wanted:
        return engines
    extra = [twins[name] for name in engines if name in twins]
    if twins["mace"] not in extra:
        raise SystemExit(f"error: {flag} compares with {label}: keep mace in --engines")
    return [name for name in ENGINES if name in engines or name in extra]


def model_list(text: str) -> list[str]:
    names = [member for name in _split(text) for member in MODEL_GROUPS.get(name, [name])]
    unknown = [name for name in names if ALIASES.get(name, name) not in MODELS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown model {', '.join(unknown)} (choose from {', '.join(MODELS)}, or a "
            f"group: {', '.join(MODEL_GROUPS)})")
    return _unique(ALIASES.get(name, name) for name in names)


def engine_list(text: str) -> list[str]:
    names = _split(text)
    unknown = [name for name in names if name not in ENGINES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown engine {', '.join(unknown)} (choose from {', '.join(ENGINES)})")
    # Report columns keep one order whatever order they were asked in.
    return [name for name in ENGINES if name in names]


def thread_list(text: str) -> list[int]:
    values = []
    for part in _split(text):
        try:
            value = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{part}' is not a thread count") from None
        if not 1 <= value <= 256:
            raise argparse.ArgumentTypeError(f"thread count {value} is not in [1, 256]")
        values.append(value)
    return sorted(set(values))


def _bounded(low: int, high: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not in [{low}, {high}]")
        return value
    return parse


def _split(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError("the list is empty")
    return names


def _unique(names) -> list[str]:
    return list(dict.fromkeys(names))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="peer_bench.py",
        description="Times the zoo models in MACE, onnxruntime, ncnn, MNN and LiteRT in one "
                    "run and writes a markdown report (see docs/how-to/benchmark.md).")
    parser.add_argument("--models", type=model_list, default=list(MODELS), metavar="A,B",
                        help="comma-separated zoo models or groups "
                             f"({', '.join(MODEL_GROUPS)}) (default: all of "
                             f"{', '.join(MODELS)})")
    parser.add_argument("--engines", type=engine_list,
                        default=[e for e in ENGINES if e not in OPT_IN_ENGINES], metavar="E,F",
                        help="comma-separated engines (default: "
                             f"{','.join(e for e in ENGINES if e not in OPT_IN_ENGINES)})")
    parser.add_argument("--threads", type=thread_list, default=DEFAULT_THREADS, metavar="N,M",
                        help="comma-separated thread counts (default: 1,2)")
    parser.add_argument("--rounds", metavar="N", type=_bounded(1, 100000), default=50,
                        help="timed runs per process, after one warm-up run (default: 50)")
    parser.add_argument("--repeats", metavar="N", type=_bounded(1, 100), default=1,
                        help="processes per engine, model and thread count, interleaved "
                             "with the other engines; the report takes the median of their "
                             "medians (default: 1)")
    parser.add_argument("--seed", metavar="N", type=_bounded(0, 2**32 - 1), default=DEFAULT_SEED,
                        help="seed of the shared random input (default: %(default)s)")
    parser.add_argument("--report", metavar="PATH", type=Path, default=None,
                        help="the markdown report; the raw numbers go beside it as .json "
                             f"(default: {DEFAULT_REPORT} for a full run of every model, "
                             f"engine and thread count, else WORK_DIR/{PARTIAL_REPORT_NAME})")
    parser.add_argument("--skip-mace-build", action="store_true",
                        help="use the MACE build already in build/ instead of running "
                             "`tools/converter.py build` for each model")
    parser.add_argument("--mace-runner", metavar="PATH", type=Path, default=None,
                        help="a mace_run already built for the host (e.g. bazel-bin/mace/"
                             "tools/mace_run): the models are only converted (`tools/"
                             "converter.py convert`, no Bazel build) and this runner runs "
                             "them")
    parser.add_argument("--no-op-profile", action="store_true",
                        help="skip the per-op-type profile of MACE (one extra mace_run "
                             "--benchmark per model)")
    parser.add_argument("--no-fma-peak", action="store_true",
                        help="skip the one-core FMA peak (cpu_gemm_benchmark, run once "
                             "before the engines) and the report's share of it")
    parser.add_argument("--cpu-affinity-policy", metavar="N", type=_bounded(0, 2), default=1,
                        help="mace_run --cpu_affinity_policy, as `converter.py run` uses "
                             "(default: 1)")
    parser.add_argument("--timeout", metavar="S", type=float, default=900.0,
                        help="seconds before one engine process is killed (default: 900)")
    parser.add_argument("--work-dir", metavar="DIR", type=Path, default=Path("build/peer_bench"),
                        help="converted models, inputs and outputs (default: %(default)s)")
    parser.add_argument("--baseline-runner", metavar="PATH", type=Path, default=None,
                        help="a mace_run built from another commit (in a second worktree); "
                             "it runs the same converted models as the engine mace_base, "
                             "interleaved with the others, and the report adds MACE / "
                             "baseline")
    parser.add_argument("--avx2-cap", action="store_true",
                        help="time every engine as on an AVX2-only x86 host: each process "
                             "runs a copy of its binaries whose cpuid instructions trap to "
                             "tools/x86/avx2_cap.c, which hides AVX-512, AVX-VNNI, AVX10 and "
                             "AMX; the core, caches and clock stay this host's. A full run "
                             f"writes {AVX2_CAP_REPORT}")
    parser.add_argument("--uint8", action="store_true",
                        help="add the uint8 columns: MACE uint8 (the zoo model quantized by "
                             "the converter), onnxruntime on the QDQ model from "
                             "quantize_static and MNN int8 from mnnquant (with ort and mnn "
                             "in --engines), all calibrated on the same fixed inputs; a "
                             "second table compares them, the float table is unchanged")
    parser.add_argument("--dynamic-int8", action="store_true",
                        help="add the dynamic int8 columns, for --models transformers: MACE "
                             "dyn int8 (the zoo model converted with dynamic_quantize: 1) "
                             "and onnxruntime on quantize_dynamic's model of the same ONNX "
                             "file (with ort in --engines), both with int8 linear layers "
                             "and activations quantized at run time, no calibration; a "
                             "table of their own compares them, the float table is "
                             "unchanged")
    return parser
