"""tools/quant_accuracy.py: the accuracy tables of docs/reports/quant_accuracy.md.

For each model and range method: calibrate the float model through
`mace_run --quantize_stat` on a fixed set of inputs, quantize it with the
converter, run it with mace_run on other fixed inputs and compare each
output with onnxruntime running the float ONNX model: cosine, cosine of the
input-dependent part (each output minus the float outputs' mean over the
inputs), top-1 agreement for score vectors, and how many ops run in uint8.

Then, per model, the import of onnxruntime's own quantization: the float
model through `quantize_static` (QDQ, per-channel int8 weights, uint8
activations) on the same calibration inputs, converted with quantize: 1 and
compared on the same evaluation inputs with onnxruntime running the QDQ
model: the share of output values within one quantum (the output's QDQ
scale), cosine and top-1 agreement.

Inputs are uniform in the deployment file's input_ranges; calibration and
evaluation use different seeds.
"""
from __future__ import annotations

import argparse
import copy
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from mace_converter import fetch, layout
from mace_converter.api import ConvertOptions, TensorSpec
from mace_converter.config import RANGE_METHODS, load_config
from mace_converter.convert import convert
from mace_converter.progress import REPO, UserError
from mace_converter.quantize import calibration
from mace_converter.quantize.agreement import output_scale, within_one_quantum
from mace_converter.quantize.graph_pass import DT_UINT8, QuantizeSettings

# Label -> (deployment file, model name in it).
MODELS = {
    "mobilenet_v1": ("models/mobilenet_v1.yml", "mobilenet_v1"),
    "mobilenet_v2": ("models/mobilenet_v2.yml", "mobilenet_v2"),
    "squeezenet1_1": ("models/squeezenet1_1.yml", "squeezenet1_1"),
    "resnet18": ("models/resnet18.yml", "resnet18"),
    "ppocr_cls": ("models/exported_onnx.yml", "ppocr_cls"),
}
DESCRIPTIONS = {
    "ppocr_cls": "PP-OCR v2 direction classifier (real weights)",
}
DOCS = REPO / "docs" / "reports" / "quant_accuracy.md"
BEGIN, END = "<!-- quant_accuracy: begin -->", "<!-- quant_accuracy: end -->"
CALIBRATION_SEED, EVALUATION_SEED = 1000, 2000


@dataclass
class Row:
    model: str
    method: str
    uint8_ops: int
    ops: int
    cosine_min: float
    cosine_mean: float
    centered_mean: Optional[float]
    top1: Optional[float]
    samples: int


@dataclass
class QdqRow:
    """MACE running the imported QDQ model against onnxruntime running it."""
    model: str
    uint8_ops: int
    ops: int
    scale: Optional[float]          # the output's QDQ scale, None when not quantized
    within_quantum: Optional[float]  # mean share of output values within one scale
    cosine_min: float
    top1: Optional[float]
    float_cosine_min: float         # MACE on the QDQ model against the float model
    samples: int


def inputs_for(specs: Sequence[TensorSpec], count: int, seed: int) -> list[dict]:
    return [{s.name: np.random.default_rng(seed + index).uniform(*s.value_range, size=s.shape)
             .astype(np.float32) for s in specs} for index in range(count)]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(np.float64).reshape(-1), b.astype(np.float64).reshape(-1)
    norm = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / norm) if norm > 0 else float(np.array_equal(a, b))


def run_mace(converted, source_specs, sample: dict, directory: Path) -> dict[str, np.ndarray]:
    (directory / "m.pb").write_bytes(converted.net_def.SerializeToString())
    (directory / "m.data").write_bytes(converted.weights)
    engine = layout.to_engine(sample, source_specs, converted.inputs)
    for name, array in engine.items():
        np.save(directory / f"in_{_safe(name)}.npy", array)
    command = [str(calibration.mace_run_binary()), f"--model_file={directory / 'm.pb'}",
               f"--model_data_file={directory / 'm.data'}",
               "--input_node=" + ",".join(s.name for s in converted.inputs),
               "--input_shape=" + ":".join(",".join(map(str, s.shape))
                                           for s in converted.inputs),
               "--output_node=" + ",".join(s.name for s in converted.outputs),
               f"--input_file={directory / 'in'}", f"--output_file={directory / 'out'}"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise UserError(f"mace_run failed: {(result.stderr or result.stdout)[-1000:]}")
    outputs = {s.name: np.load(directory / f"out_{_safe(s.name)}.npy")
               for s in converted.outputs}
    return outputs


@dataclass
class Setup:
    label: str
    model: object                   # ModelConfig
    options: ConvertOptions
    model_file: Path
    evaluation: list[dict]
    reference: list[dict]           # onnxruntime on the float model, per evaluation input


def setup(label: str, evaluation_count: int) -> Setup:
    path, name = MODELS[label]
    config = load_config(REPO / path)
    model = config.models[name]
    model_file, _ = fetch.model_files(config, model)
    options = ConvertOptions(platform=model.platform, model_file=model_file, weight_file=None,
                             inputs=copy.deepcopy(model.inputs),
                             outputs=copy.deepcopy(model.outputs), model_name=name)
    evaluation = inputs_for(model.inputs, evaluation_count, EVALUATION_SEED)
    return Setup(label=label, model=model, options=options, model_file=model_file,
                 evaluation=evaluation, reference=run_onnxruntime(model_file, model.outputs,
                                                                  evaluation))


def run_onnxruntime(model_file: Path, outputs: Sequence[TensorSpec],
                    samples: Sequence[dict]) -> list[dict]:
    import onnxruntime
    session = onnxruntime.InferenceSession(str(model_file), providers=["CPUExecutionProvider"])
    names = [s.name for s in outputs]
    return [dict(zip(names, session.run(names, sample))) for sample in samples]


def evaluate(label: str, methods: Sequence[str], calibration_count: int,
             evaluation_count: int, log, qdq: bool = False) -> tuple[list[Row], list[QdqRow]]:
    """The rows of every range method, and with `qdq` the row of the
    imported quantize_static model."""
    prepared = setup(label, evaluation_count)
    model, options = prepared.model, prepared.options
    outputs = [s.name for s in model.outputs]
    calibration_inputs = inputs_for(model.inputs, calibration_count, CALIBRATION_SEED)
    rows, qdq_rows = [], []
    with tempfile.TemporaryDirectory(prefix="quant_accuracy_") as tmp:
        directory = Path(tmp)
        floating = convert(copy.deepcopy(options))
        graph, weights = directory / "f.pb", directory / "f.data"
        graph.write_bytes(floating.net_def.SerializeToString())
        weights.write_bytes(floating.weights)
        samples = [layout.to_engine(s, model.inputs, floating.inputs)
                   for s in calibration_inputs]
        for method in methods:
            log(f"==> {label}: {method}: calibrate on {calibration_count} inputs")
            ranges = calibration.collect_ranges(graph, weights, floating.inputs, samples,
                                                method)
            quantized_options = copy.deepcopy(options)
            quantized_options.data_type = "uint8"
            quantized_options.quantize = QuantizeSettings(ranges=ranges)
            quantized = convert(quantized_options)
            got = [run_mace(quantized, model.inputs, sample, directory)
                   for sample in prepared.evaluation]
            rows.append(_row(label, method, quantized, got, prepared.reference, outputs[0]))
            log(f"    {format_row(rows[-1])}")
        if qdq:
            log(f"==> {label}: quantize_static on the same {calibration_count} inputs, "
                "imported with quantize: 1")
            qdq_rows.append(evaluate_qdq(prepared, calibration_inputs, directory))
            log(f"    {format_qdq_row(qdq_rows[-1])}")
    return rows, qdq_rows


def evaluate_qdq(prepared: Setup, calibration_inputs: Sequence[dict],
                 directory: Path) -> QdqRow:
    from mace_tools.peer_bench.int8 import quantize_qdq
    model = prepared.model
    qdq_file = directory / "model.qdq.onnx"
    quantize_qdq(prepared.model_file, qdq_file, iter(calibration_inputs))
    options = copy.deepcopy(prepared.options)
    options.model_file = qdq_file
    options.data_type = "uint8"
    options.quantize = QuantizeSettings()
    imported = convert(options)
    got = [run_mace(imported, model.inputs, sample, directory)
           for sample in prepared.evaluation]
    expected = run_onnxruntime(qdq_file, model.outputs, prepared.evaluation)
    output = model.outputs[0].name
    return _qdq_row(prepared.label, imported, got, expected, prepared.reference, output,
                    output_scale(qdq_file, output))


def _qdq_row(label: str, imported, got: list[dict], expected: list[dict],
             reference: list[dict], output: str, scale: Optional[float]) -> QdqRow:
    engine = imported.outputs[0].name
    pairs = [(g[engine].reshape(-1), e[output].reshape(-1)) for g, e in zip(got, expected)]
    within = float(np.mean([within_one_quantum(a, b, scale) for a, b in pairs])) \
        if scale is not None else None
    uint8 = _uint8_ops(imported)
    return QdqRow(model=label, uint8_ops=uint8, ops=len(imported.net_def.op), scale=scale,
                  within_quantum=within, cosine_min=min(cosine(a, b) for a, b in pairs),
                  top1=_top1(pairs, expected[0][output]),
                  float_cosine_min=min(cosine(g[engine], r[output])
                                       for g, r in zip(got, reference)),
                  samples=len(pairs))


def _top1(pairs, sample: np.ndarray) -> Optional[float]:
    """Top-1 agreement of (actual, expected) pairs, for score vectors only."""
    if not pairs or pairs[0][1].size < 2 or sample.size != sample.shape[-1]:
        return None
    return float(np.mean([np.argmax(a) == np.argmax(b) for a, b in pairs]))


def _uint8_ops(converted) -> int:
    return sum(any(a.name == "T" and a.i == DT_UINT8 for a in op.arg)
               for op in converted.net_def.op)


def _row(label: str, method: str, quantized, got: list[dict], reference: list[dict],
         output: str) -> Row:
    engine = quantized.outputs[0].name
    pairs = [(g[engine].reshape(-1), r[output].reshape(-1)) for g, r in zip(got, reference)]
    cosines = [cosine(a, b) for a, b in pairs]
    mean = np.mean([b for _, b in pairs], axis=0)
    # Two values (a two-class softmax) centre to (d, -d): the cosine is +-1.
    centered = [cosine(a - mean, b - mean) for a, b in pairs] \
        if len(pairs) > 1 and mean.size > 2 else []
    return Row(model=label, method=method, uint8_ops=_uint8_ops(quantized),
               ops=len(quantized.net_def.op), cosine_min=min(cosines),
               cosine_mean=float(np.mean(cosines)),
               centered_mean=float(np.mean(centered)) if centered else None,
               top1=_top1(pairs, reference[0][output]) if reference else None,
               samples=len(pairs))


def format_row(row: Row) -> str:
    return (f"{row.model} {row.method}: {row.uint8_ops}/{row.ops} ops uint8, cosine min "
            f"{row.cosine_min:.4f} mean {row.cosine_mean:.4f}, centered "
            f"{_num(row.centered_mean)}, top-1 {_share(row.top1)}")


def format_qdq_row(row: QdqRow) -> str:
    return (f"{row.model} QDQ import: {row.uint8_ops}/{row.ops} ops uint8, within one quantum "
            f"{_percent(row.within_quantum)}, cosine min {row.cosine_min:.4f} against "
            f"onnxruntime on the QDQ model ({row.float_cosine_min:.4f} against the float "
            f"model), top-1 {_share(row.top1)}")


def _percent(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _num(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _share(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def markdown(rows: Sequence[Row], calibration_count: int, evaluation_count: int,
             qdq_rows: Sequence[QdqRow] = ()) -> str:
    lines = ["| model | ranges | uint8 ops | cosine (min) | cosine (mean) | "
             "centered cosine (mean) | top-1 agreement |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {DESCRIPTIONS.get(row.model, row.model)} | {row.method} | "
                     f"{row.uint8_ops}/{row.ops} | {row.cosine_min:.4f} | "
                     f"{row.cosine_mean:.4f} | {_num(row.centered_mean)} | "
                     f"{_share(row.top1)} |")
    lines += ["", f"Calibrated on {calibration_count} and compared on {evaluation_count} "
              "other uniform random inputs within each model's input_ranges, against "
              "onnxruntime on the float model. Made by `tools/quant_accuracy.py --docs`."]
    if qdq_rows:
        lines += ["", "| model | uint8 ops | output scale | within one quantum | "
                  "cosine (min) | top-1 agreement | cosine against float (min) |",
                  "|---|---|---|---|---|---|---|"]
        for row in qdq_rows:
            lines.append(f"| {DESCRIPTIONS.get(row.model, row.model)} | "
                         f"{row.uint8_ops}/{row.ops} | "
                         f"{'n/a' if row.scale is None else f'{row.scale:.4g}'} | "
                         f"{_percent(row.within_quantum)} | {row.cosine_min:.4f} | "
                         f"{_share(row.top1)} | {row.float_cosine_min:.4f} |")
        lines += ["", "The float model quantized by onnxruntime's `quantize_static` (QDQ, "
                  "per-channel int8 weights, uint8 activations, MinMax) on the same "
                  f"{calibration_count} calibration inputs and converted with `quantize: 1`, "
                  f"against onnxruntime running that QDQ model on the same {evaluation_count} "
                  "inputs: the mean share of output values within one quantum (the output's "
                  "QDQ scale), cosine and top-1 agreement; the last column compares with the "
                  "float model."]
    return "\n".join(lines)


def replace_in_docs(text: str, table: str) -> str:
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise UserError(f"{DOCS} has no {BEGIN} ... {END} block")
    return pattern.sub(lambda _: f"{BEGIN}\n{table}\n{END}", text)


def _safe(name: str) -> str:
    return name.replace("/", "_").replace(":", "_").replace(" ", "_")


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="quant_accuracy.py", description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS),
                        help=f"comma-separated (default: {','.join(MODELS)})")
    parser.add_argument("--methods", default=",".join(RANGE_METHODS),
                        help=f"comma-separated range methods (default: {','.join(RANGE_METHODS)})")
    parser.add_argument("--calibration", type=int, default=16, help="calibration inputs")
    parser.add_argument("--evaluation", type=int, default=8, help="inputs compared")
    parser.add_argument("--no-qdq", dest="qdq", action="store_false",
                        help="skip the import of onnxruntime's quantize_static model")
    parser.add_argument("--docs", action="store_true",
                        help=f"write the table into {DOCS.relative_to(REPO)} between the "
                             "quant_accuracy markers")
    args = parser.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    args.methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for name in args.models:
        if name not in MODELS:
            parser.error(f"unknown model {name} (choose from {', '.join(MODELS)})")
    for name in args.methods:
        if name not in RANGE_METHODS:
            parser.error(f"unknown range method {name} (choose from {', '.join(RANGE_METHODS)})")
    if args.calibration < 1 or args.evaluation < 1:
        parser.error("--calibration and --evaluation need at least one input")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    rows, qdq_rows = [], []
    try:
        for label in args.models:
            found, imported = evaluate(label, args.methods, args.calibration, args.evaluation,
                                       lambda text: print(text, flush=True), qdq=args.qdq)
            rows += found
            qdq_rows += imported
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    table = markdown(rows, args.calibration, args.evaluation, qdq_rows)
    print("\n" + table)
    if args.docs:
        DOCS.write_text(replace_in_docs(DOCS.read_text(), table))
        print(f"\nwrote the table into {DOCS}")
    return 0
