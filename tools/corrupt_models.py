#!/usr/bin/env python3
"""Corrupt-model suite: mutates MobileNet v2 (its graph, weights, input and
mace_run's flags), runs mace_run on each case and classifies the result as
error, legit, crash, hang or silent (accept). Exits 1 on any crash, hang or
silent accept. See docs/design/security.md.

  tools/corrupt_models.py --mace_run=PATH              1000 cases, seed 1
  tools/corrupt_models.py --mace_run=PATH --cases=60   the CI smoke
  tools/corrupt_models.py --mace_run=PATH --only=17    rerun one case

Run it with the ASan/UBSan build of mace_run
(`bazel build --config=asan //mace/tools:mace_run`).
"""
import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools" / "python"))

from mace_tools import corrupt_models  # noqa: E402  pylint: disable=wrong-import-position


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mace_run", required=True, type=Path)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=64, help="input height and width")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", type=Path, default=REPO / "build" / "corrupt_models")
    parser.add_argument("--only", type=str, default="", help="comma-separated case numbers")
    parser.add_argument("--verbose", action="store_true", help="print every case")
    args = parser.parse_args()
    if not args.mace_run.is_file():
        print(f"error: --mace_run: {args.mace_run} is not a file", file=sys.stderr)
        return 2
    only = [int(i) for i in args.only.split(",") if i] or None

    def report(result):
        if args.verbose or result.verdict in corrupt_models.BAD_CLASSES:
            print(f"{result.case.index:5d} {result.verdict:6s} {result.seconds:6.2f}s "
                  f"[{result.case.family}] {result.case.what} -> {result.message[:160]}",
                  flush=True)

    results = corrupt_models.run_suite(args.mace_run, args.cases, args.seed, args.work,
                                       args.timeout, args.jobs, args.size, only, report)
    print("\nper family: " + " ".join(corrupt_models.CLASSES))
    for family, row in sorted(corrupt_models.by_family(results).items()):
        print(f"  {family:14s} " + " ".join(f"{row[name]:5d}" for name in corrupt_models.CLASSES))
    tally = corrupt_models.counts(results)
    print(f"\n{len(results)} cases (seed {args.seed}): " +
          ", ".join(f"{tally[name]} {name}" for name in corrupt_models.CLASSES))
    bad = sum(tally[name] for name in corrupt_models.BAD_CLASSES)
    if bad:
        print(f"FAILED: {bad} crash/hang/silent case(s); inputs kept under {args.work}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
