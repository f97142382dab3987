"""Builds MobileNet v2 as a MACE model, runs it with mace_run on the CPU and
checks the result against an independent numpy forward pass.

usage: run_demo.py --mace_run PATH [--out_dir DIR] [--round N]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from mace_tools import mobilenet_v2

INPUT_SEED = 1234


def write_npy(path: Path, array: np.ndarray) -> None:
    np.save(path, array.astype(np.float32))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mace_run", required=True, help="path to the mace_run binary")
    parser.add_argument("--out_dir", default="build/demo")
    parser.add_argument("--round", type=int, default=5)
    parser.add_argument("--runner", default="", help="prefix command, e.g. a qemu wrapper")
    args = parser.parse_args()

    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    net, layers = mobilenet_v2.build()
    pb, data = out / "mobilenet_v2.pb", out / "mobilenet_v2.data"
    net.save(pb, data)
    print(f"built {pb} ({pb.stat().st_size} bytes) and {data} "
          f"({data.stat().st_size / 2**20:.1f} MiB) in {time.time() - start:.1f} s")

    image = np.random.default_rng(INPUT_SEED).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    write_npy(out / "input_input.npy", image)
    command = ([args.runner] if args.runner else []) + [
        args.mace_run, f"--model_file={pb}", f"--model_data_file={data}",
        "--input_node=input", "--input_shape=1,3,224,224", "--output_node=output",
        "--output_shape=1,1000", f"--input_file={out / 'input'}",
        f"--output_file={out / 'result'}", f"--round={args.round}", "--memory_report"]
    print("$ " + " ".join(command), flush=True)
    result = subprocess.run(command, text=True, capture_output=True)
    # The per-tensor placement list is long; keep the summary lines.
    for line in result.stdout.splitlines():
        if not line.startswith("  ") or ":" in line:
            print(line)
    if result.returncode != 0:
        print(result.stderr, file=sys.stderr)
        return result.returncode

    mace_out = np.load(out / "result_output.npy").reshape(-1)
    expected = mobilenet_v2.reference(layers, image).reshape(-1)
    max_err = float(np.abs(mace_out - expected).max())
    cosine = float(mace_out @ expected / (np.linalg.norm(mace_out) * np.linalg.norm(expected)))
    top5_mace = np.argsort(-mace_out)[:5].tolist()
    top5_ref = np.argsort(-expected)[:5].tolist()
    print(f"numpy reference: top-5 {top5_ref}")
    print(f"validation vs numpy: cosine {cosine:.7f}, max abs error {max_err:.3g}, "
          f"top-5 {'match' if top5_mace == top5_ref else 'DIFFER'}")
    ok = cosine > 0.9999 and max_err < 1e-4
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
