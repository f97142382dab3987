#!/usr/bin/env python3
"""Installs a MACE wheel into a fresh virtualenv and checks it against
mace_run: the installed module loads its own libmace.so (no environment
variables, the repository out of reach), runs a converted model on a seeded
input, and its outputs must match mace_run's on the same input.

    tools/wheel_check.py --wheel build/wheel/mace_engine-....whl \\
        --mace_run bazel-bin/mace/tools/mace_run \\
        --model build/mobilenet_v2/model/mobilenet_v2.pb

Exits non-zero on any difference. Only the standard library and numpy.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SEED = 20261128
# Runs inside the fresh virtualenv, in an empty directory, with -I (no
# PYTHONPATH, no user site): only the installed wheel can provide `mace`.
CHILD = """
import importlib.metadata, json, sys
from pathlib import Path
import numpy as np
import mace
graph, weights, out, seed = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
with mace.Engine(graph, weights, threads=1) as engine:
    inputs = {name: rng.uniform(-1, 1, shape).astype(np.float32)
              for name, shape in engine.input_shapes.items()}
    outputs = engine.run(inputs)
for name, value in inputs.items():
    np.save(out / f"in_{name}.npy", value)
for name, value in outputs.items():
    np.save(out / f"py_{name}.npy", value)
print(json.dumps({"library": str(mace.library_path()), "version": mace.version(),
                  "dist_version": importlib.metadata.version("mace-engine"),
                  "outputs": sorted(outputs)}))
"""


def numpy_pin() -> str:
    text = (REPO / "tools" / "requirements.txt").read_text()
    match = re.search(r"^numpy==\S+", text, re.MULTILINE)
    if not match:
        raise SystemExit("tools/requirements.txt pins no numpy")
    return match.group(0)


def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    """Runs a command; a failure ends the check with the command's output."""
    command = [str(part) for part in command]
    result = subprocess.run(command, text=True, capture_output=True, **kwargs)
    if result.returncode != 0:
        shown = " ".join(part if len(part) < 200 else "<script>" for part in command)
        raise SystemExit(f"wheel check: `{shown}` failed ({result.returncode}):\n"
                         f"{result.stdout}{result.stderr}")
    return result


def install(wheel: Path, venv: Path) -> float:
    """A fresh virtualenv with the pinned numpy and the wheel; seconds taken."""
    start = time.monotonic()
    run([sys.executable, "-m", "venv", "--clear", venv])
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run([*pip, numpy_pin()])
    run([*pip, "--no-index", wheel])
    return time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, required=True)
    parser.add_argument("--mace_run", type=Path, required=True)
    parser.add_argument("--model", type=Path, required=True, help=".pb (the .data beside it)")
    parser.add_argument("--venv", type=Path, default=REPO / "build" / "wheel" / "test-venv")
    args = parser.parse_args()
    weights = args.model.with_suffix(".data")
    for path in (args.wheel, args.mace_run, args.model, weights):
        if not path.is_file():
            raise SystemExit(f"no such file: {path}")

    install_s = install(args.wheel.resolve(), args.venv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        start = time.monotonic()
        child = run([args.venv / "bin" / "python", "-I", "-c", CHILD, args.model.resolve(),
                     weights.resolve(), out, SEED], cwd=out)
        run_s = time.monotonic() - start
        report = check_report(child.stdout, args.venv)
        run([args.mace_run, f"--model_file={args.model}", f"--model_data_file={weights}",
             f"--input_file={out}/in", f"--output_file={out}/ref", "--omp_num_threads=1"])
        worst = 0.0
        for name in report["outputs"]:
            mine = np.load(out / f"py_{name}.npy")
            reference = np.load(out / f"ref_{name}.npy")
            if mine.shape != reference.shape or mine.dtype != reference.dtype:
                raise SystemExit(f"output {name}: {mine.dtype}{mine.shape} from the wheel, "
                                 f"{reference.dtype}{reference.shape} from mace_run")
            np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6,
                                       err_msg=f"output {name}")
            worst = max(worst, float(np.max(np.abs(mine.astype(np.float64) - reference))))
    print(f"wheel check: {args.wheel.name} matches mace_run on {args.model.name} "
          f"(seed {SEED}, max abs difference {worst:.3g}); install {install_s:.1f} s, "
          f"import and run {run_s:.1f} s")
    return 0


def check_report(stdout: str, venv: Path) -> dict:
    """The child's report, checked: the library is the wheel's own and the
    versions agree."""
    report = json.loads(stdout.strip().splitlines()[-1])
    library = Path(report["library"]).resolve()
    if venv.resolve() not in library.parents:
        raise SystemExit(f"the module loaded {library}, not the wheel's libmace.so in {venv}")
    if report["version"] != report["dist_version"]:
        raise SystemExit(f"libmace.so says version {report['version']}, the wheel "
                         f"{report['dist_version']}")
    if not report["outputs"]:
        raise SystemExit("the model has no outputs")
    return report


if __name__ == "__main__":
    sys.exit(main())
