"""Builds, runs and validates every deployment file of the model zoo on the
host and prints a markdown table: per model and output, cosine similarity,
SQNR and max absolute error against the source framework, and the time of
each converter step.

    tools/zoo_validate.sh [--models mobilenet_v2,tiny_tf]
                          [--runtime gpu [--data-type fp16_fp32|fp32_fp32]]

Each deployment file goes through `converter.py build` and then
`converter.py run --validate --target_abi host`; a failed build, run or
validation is a row marked FAIL, and the exit code is 1 if any row failed.
With --runtime, each file is first copied to build/zoo_validate/ with every
model given that runtime (and data type), host as its only ABI and a library
name of its own, so the CPU builds are left alone. On a machine without a
GPU, the GPU runs on any OpenCL device (PoCL's CPU device here).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import yaml

REPO = Path(__file__).resolve().parents[3]

# Every deployment file the zoo ships, in report order.
DEFAULT_MODELS = ["mobilenet_v1", "mobilenet_v2", "squeezenet1_1", "resnet18", "resnet50",
                  "shufflenet_v2", "inception_v3", "deeplab_v3", "tiny_tf", "tiny_caffe"]

# "    out: cosine 0.999999 (>= 0.999), SQNR 71.2 dB, max abs error 1.2e-06  PASS"
COMPARISON = re.compile(r"^\s*(\S+): cosine (-?[\d.]+) \(>= ([\d.]+)\), SQNR (inf|-?[\d.]+) dB, "
                        r"max abs error (\S+)\s+(PASS|FAIL)\s*$")
# "    convert mobilenet_v2 (onnx -> MACE, ...): 1.0 s" -- the step's closing line.
STEP = re.compile(r"^\s{4}(\w+)\b[^\n]*?: ([\d.]+) s$")


@dataclass
class Validation:
    output: str
    cosine: float
    threshold: float
    sqnr: str
    max_abs_error: str
    passed: bool


@dataclass
class ModelResult:
    name: str
    validations: list[Validation] = field(default_factory=list)
    steps: dict[str, float] = field(default_factory=dict)
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.validations) and all(
            v.passed for v in self.validations)


def parse_validations(text: str) -> list[Validation]:
    found = []
    for line in text.splitlines():
        match = COMPARISON.match(line)
        if match:
            found.append(Validation(output=match.group(1), cosine=float(match.group(2)),
                                    threshold=float(match.group(3)), sqnr=match.group(4),
                                    max_abs_error=match.group(5),
                                    passed=match.group(6) == "PASS"))
    return found


def parse_steps(text: str) -> dict[str, float]:
    """Seconds per step kind (convert, build, run, validate, ...), summed."""
    steps: dict[str, float] = {}
    for line in text.splitlines():
        match = STEP.match(line)
        if match:
            steps[match.group(1)] = steps.get(match.group(1), 0.0) + float(match.group(2))
    return steps


def format_table(results: list[ModelResult]) -> str:
    lines = ["| model | output | cosine | SQNR dB | max abs error | result |",
             "|---|---|---|---|---|---|"]
    for result in results:
        if not result.validations:
            lines.append(f"| {result.name} | - | - | - | - | FAIL: {result.error or 'no output'} |")
        for v in result.validations:
            verdict = "pass" if v.passed else f"FAIL (< {v.threshold})"
            lines.append(f"| {result.name} | {v.output} | {v.cosine:.6f} | {v.sqnr} | "
                         f"{v.max_abs_error} | {verdict} |")
    kinds = []
    for result in results:
        kinds += [kind for kind in result.steps if kind not in kinds]
    lines += ["", "| model | " + " | ".join(f"{kind} s" for kind in kinds) + " |",
              "|---|" + "---|" * len(kinds)]
    for result in results:
        cells = [f"{result.steps[k]:.1f}" if k in result.steps else "-" for k in kinds]
        lines.append(f"| {result.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def converter(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "tools" / "converter.py"), *args],
                          cwd=REPO, text=True, capture_output=True)


def override_config(source: Path, runtime: str, data_type: Optional[str],
                    directory: Path) -> Path:
    """A copy of the deployment file `source` whose models all run on
    `runtime` (with `data_type`, else the runtime's default), built for the
    host only, as a library named after the runtime and data type."""
    document = yaml.safe_load(source.read_text())
    suffix = "_".join(part for part in (runtime.replace("+", "_"), data_type) if part)
    document["library_name"] = f"{document['library_name']}_{suffix}"
    document["target_abis"] = ["host"]
    for model in document["models"].values():
        model["runtime"] = runtime
        model.pop("data_type", None)
        if data_type:
            model["data_type"] = data_type
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{source.stem}.{suffix}.yml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def validate_model(name: str, runtime: Optional[str] = None,
                   data_type: Optional[str] = None) -> ModelResult:
    result = ModelResult(name)
    config = f"models/{name}.yml"
    if not (REPO / config).exists():
        result.error = f"no deployment file {config}"
        return result
    if runtime:
        config = str(override_config(REPO / config, runtime, data_type,
                                     REPO / "build" / "zoo_validate"))
    start = time.monotonic()
    built = converter("build", "--config", config)
    result.steps = parse_steps(built.stdout)
    result.steps["build (total)"] = time.monotonic() - start
    if built.returncode != 0:
        result.error = "build failed: " + (built.stderr.strip().splitlines() or ["?"])[-1]
        return result
    ran = converter("run", "--config", config, "--target_abi", "host", "--round", "1",
                    "--validate")
    for kind, seconds in parse_steps(ran.stdout).items():
        result.steps[kind] = result.steps.get(kind, 0.0) + seconds
    result.validations = parse_validations(ran.stdout)
    if ran.returncode != 0 and not result.validations:
        result.error = "run failed: " + (ran.stderr.strip().splitlines() or ["?"])[-1]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="deployment file names under models/, comma separated")
    parser.add_argument("--runtime", choices=["cpu", "gpu", "cpu+gpu"],
                        help="run every model on this runtime instead of its file's")
    parser.add_argument("--data-type", dest="data_type", choices=["fp16_fp32", "fp32_fp32"],
                        help="with --runtime gpu: the GPU's image storage (default: "
                             "the runtime's, fp16_fp32)")
    args = parser.parse_args(argv)
    if args.data_type and not args.runtime:
        parser.error("--data-type needs --runtime")
    results = []
    for name in args.models.split(","):
        print(f"zoo_validate: {name}", file=sys.stderr, flush=True)
        results.append(validate_model(name, args.runtime, args.data_type))
        print(f"zoo_validate: {name}: {'pass' if results[-1].passed else 'FAIL'}",
              file=sys.stderr, flush=True)
    print(format_table(results))
    return 0 if all(result.passed for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
