#!/usr/bin/env python3
"""Fuzzes the converter's parsers (deployment YAML, ONNX, TensorFlow, Caffe
prototxt and caffemodel) with seeded mutations, and deployment files and ONNX
graphs with structure-aware ones (targets deploy and onnx_graph). Bad input
must end in the converter's own error (a message and exit code 1), never a
traceback or a hang; a structure-aware case that breaks a rule must be
refused, not converted ("silent"). Exits 1 on any finding; the inputs are kept
under --out.

  tools/converter_fuzz.py                        every target, 60 s each
  tools/converter_fuzz.py --seconds=5            the CI smoke
  tools/converter_fuzz.py --target=onnx --seconds=600 --seed=3
  tools/converter_fuzz.py --smoke                the structure-aware targets,
                                                 200 cases each, seed 1
"""
import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools" / "python"))

from mace_tools import converter_fuzz  # noqa: E402  pylint: disable=wrong-import-position


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append",
                        help="deploy, onnx_graph, yaml, onnx, tf, caffe_prototxt or "
                             "caffe_model (default: all)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="time per target (default 60, or 600 with --smoke)")
    parser.add_argument("--cases", type=int, default=None, help="at most this many per target")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per input")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "fuzz" / "converter")
    parser.add_argument("--smoke", action="store_true",
                        help="deploy and onnx_graph, 200 cases each (unless --cases)")
    args = parser.parse_args()
    targets = converter_fuzz.targets()
    if args.smoke:
        args.target = args.target or ["deploy", "onnx_graph"]
        args.cases = args.cases or 200
    if args.seconds is None:
        args.seconds = 600.0 if args.smoke else 60.0
    print(f"seed {args.seed}", flush=True)
    names = args.target or list(targets)
    unknown = [name for name in names if name not in targets]
    if unknown:
        print(f"error: unknown target(s) {unknown}; choose from {list(targets)}", file=sys.stderr)
        return 2
    failed = False
    for name in names:
        tally, findings = converter_fuzz.fuzz(targets[name], args.seed, args.seconds, args.cases,
                                              args.timeout, args.out)
        total = sum(tally.values())
        print(f"== {name}: {total} inputs: {tally['error']} converter errors, {tally['ok']} "
              f"converted, {tally['traceback']} tracebacks, {tally['hang']} hangs, "
              f"{tally['silent']} silent accepts", flush=True)
        for finding in findings:
            failed = True
            print(f"  {finding.kind} at input {finding.index} "
                  f"(saved as {args.out / f'{name}-{finding.index}'}):")
            print("    " + "\n    ".join(finding.detail.strip().splitlines()[-6:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
