#!/usr/bin/env python3
"""Runs ONNX's own backend node tests through MACE: the real converter and
the real engine (mace_run on the CPU), not the converter's numpy runner.

Each test in the installed onnx wheel's onnx/backend/test/data/node/<test>/
is a model.onnx and test_data_set_0/{input,output}_*.pb. A test is claimed
when the converter has a converter (or a conversion-time evaluation) for
every op type in it. Outputs are compared with ONNX's tolerances: float
|got - want| <= 1e-7 + 1e-3 * |want| elementwise, integers and bools exactly.

Every test gets one outcome:
  pass       the engine's outputs match the suite's
  mismatch   the engine ran and gave other numbers or another shape
  refused    the converter or the engine refused it with a clear message
  crash      mace_run died on a signal, or the converter raised something
             other than ConversionError (a traceback)
  hang       mace_run ran longer than --timeout seconds

  tools/onnx_conformance.py                     claimed tests, summary
  tools/onnx_conformance.py --all               every node test
  tools/onnx_conformance.py --filter conv       tests whose name matches
  tools/onnx_conformance.py --report docs/reports/onnx_conformance.md
  tools/onnx_conformance.py --min-pass-rate 0.5 exit 1 below that rate

It exits 1 if any test crashed or hung, or the pass rate of the claimed
tests is below --min-pass-rate.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools" / "python"))

# Op types the importer handles without a converter of its own: evaluated
# at conversion (the graph's shape arithmetic) or taken as the model input;
# and control flow, whose subgraphs become engine subgraphs.
FOLDED_OPS = {"Constant", "Shape", "Size"}
CONTROL_FLOW_OPS = {"If", "Loop", "Scan"}
RTOL, ATOL = 1e-3, 1e-7


@dataclass
class Outcome:
    name: str
    ops: list[str]
    claimed: bool
    status: str = "refused"
    reason: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def node_test_dir() -> Path:
    import onnx
    return Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"


def claimed_ops() -> set[str]:
    from mace_converter.frontends import onnx_frontend  # registers the converters
    from mace_converter.frontends.onnx_common import CONVERTERS
    del onnx_frontend
    return set(CONVERTERS) | FOLDED_OPS | CONTROL_FLOW_OPS


def model_ops(model) -> list[str]:
    """Op types of the graph and of every subgraph, in order of first use;
    ops of other domains are named domain:type."""
    seen: list[str] = []

    def walk(graph):
        for node in graph.node:
            key = node.op_type if node.domain in ("", "ai.onnx") else \
                f"{node.domain}:{node.op_type}"
            if key not in seen:
                seen.append(key)
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(attr.g)
                for sub in attr.graphs:
                    walk(sub)
    walk(model.graph)
    return seen


def read_tensors(case: Path, prefix: str, infos) -> list:
    """The TensorProtos of input_*.pb or output_*.pb, in index order, for the
    graph values `infos`; None where the value is a sequence, map or optional
    (or the file cannot be read)."""
    import onnx
    files = sorted(case.glob(f"{prefix}_*.pb"),
                   key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    values = []
    for index, path in enumerate(files):
        if index >= len(infos) or not infos[index].type.HasField("tensor_type"):
            values.append(None)
            continue
        proto = onnx.TensorProto()
        try:
            proto.ParseFromString(path.read_bytes())
        except Exception:  # a damaged file
            proto = None
        values.append(proto)
    return values


def tensor_values(proto, info=None) -> np.ndarray:
    """The values of a TensorProto for the graph value `info`. bfloat16 and
    float8 tensors become the float32 values they hold (MACE carries them
    so), not their bits. The suite stores some bfloat16 data as uint16 bits,
    so the graph's declared type decides."""
    from onnx import TensorProto, numpy_helper
    array = numpy_helper.to_array(proto)
    declared = info.type.tensor_type.elem_type if info is not None else proto.data_type
    if TensorProto.BFLOAT16 in (declared, proto.data_type):
        bits = np.asarray(array).view(np.uint16) if array.dtype.itemsize == 2 else None
        if bits is not None:
            return (bits.astype(np.uint32) << 16).view(np.float32)
    if proto.data_type in (TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ,
                           TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ):
        from onnx.reference.ops.op_cast import cast_to
        return cast_to(array, TensorProto.FLOAT, True)
    return array


def safe_name(name: str) -> str:
    return name.replace("/", "_").replace(":", "_").replace(" ", "_")


def compare(got: np.ndarray, want: np.ndarray) -> str:
    """'' when `got` matches `want` under ONNX's tolerances, else why not."""
    if list(got.shape) != list(want.shape):
        return f"shape {list(got.shape)}, expected {list(want.shape)}"
    if want.size == 0:
        return ""
    if want.dtype.kind in "fc":
        want64 = want.astype(np.float64)
        got64 = got.astype(np.float64)
        same_nan = np.isnan(want64) == np.isnan(got64)
        close = np.abs(got64 - want64) <= ATOL + RTOL * np.abs(want64)
        close |= (got64 == want64)  # equal infinities
        close &= same_nan
        close |= np.isnan(want64) & np.isnan(got64)
        if not close.all():
            index = np.unravel_index(np.argmin(close), want.shape)
            return (f"{int((~close).sum())} of {want.size} values differ; at "
                    f"{list(int(i) for i in index)} got {got64[index]:.7g}, "
                    f"expected {want64[index]:.7g}")
        return ""
    exact = got.astype(np.float64) == want.astype(np.float64)
    if not exact.all():
        index = np.unravel_index(np.argmin(exact), want.shape)
        return (f"{int((~exact).sum())} of {want.size} values differ; at "
                f"{list(int(i) for i in index)} got {got[index]}, expected {want[index]}")
    return ""


def first_line(text: str, limit: int = 300) -> str:
    """The message of `text`: mace_run's error line if it printed one (before
    its usage text), else the last line."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("mace_run: error:")]
    line = errors[0] if errors else lines[-1] if lines else "no message"
    line = line.removeprefix("mace_run: error: ")
    return line if len(line) <= limit else line[:limit] + "..."


# The NumPy type of each input type the engine takes besides float32.
_FEED_TYPES = {"int32": np.int32, "int64": np.int64, "bool": np.bool_, "uint8": np.uint8}


def run_case(case: Path, claimed: set[str], mace_run: Path, timeout: float,
             work: Path) -> Outcome:
    import onnx
    from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
    from mace_converter.convert import convert
    from mace_converter.progress import UserError

    start = time.monotonic()
    model = onnx.load(str(case / "model.onnx"))
    ops = model_ops(model)
    outcome = Outcome(case.name, ops, all(op in claimed for op in ops))

    def done(status: str, reason: str = "") -> Outcome:
        outcome.status, outcome.reason = status, reason
        outcome.seconds = time.monotonic() - start
        return outcome

    data = case / "test_data_set_0"
    init_names = {t.name for t in model.graph.initializer}
    input_infos = [i for i in model.graph.input if i.name not in init_names]
    input_names = [i.name for i in input_infos]
    output_names = [o.name for o in model.graph.output]
    inputs = read_tensors(data, "input", input_infos)
    outputs = read_tensors(data, "output", list(model.graph.output))
    if any(v is None for v in inputs + outputs):
        return done("refused", "the test feeds or expects a sequence, map or optional, "
                    "which MACE tensors cannot hold")
    if len(inputs) != len(input_names) or len(outputs) != len(output_names):
        return done("refused", "the test data does not match the graph's inputs and outputs")
    try:
        input_arrays = {info.name: tensor_values(t, info)
                        for info, t in zip(input_infos, inputs)}
        want = {info.name: tensor_values(t, info)
                for info, t in zip(model.graph.output, outputs)}
    except Exception as error:  # e.g. a type numpy_helper cannot read
        return done("refused", f"the test data cannot be read: {first_line(str(error))}")

    out_dir = work / case.name
    out_dir.mkdir(parents=True, exist_ok=True)
    options = ConvertOptions(
        platform="onnx", model_file=case / "model.onnx", weight_file=None,
        inputs=[TensorSpec(name, list(array.shape), data_format="NONE")
                for name, array in input_arrays.items()],
        outputs=[TensorSpec(name, [], data_format="NONE") for name in output_names],
        model_name=safe_name(case.name))
    try:
        converted = convert(options)
    except (ConversionError, UserError) as error:
        return done("refused", "converter: " + first_line(str(error)))
    except Exception:
        return done("crash", "converter traceback: " +
                    first_line(traceback.format_exc()))
    pb, weights = out_dir / "model.pb", out_dir / "model.data"
    pb.write_bytes(converted.net_def.SerializeToString(deterministic=True))
    weights.write_bytes(converted.weights)

    engine_inputs = {spec.name: spec for spec in converted.inputs}
    for name, array in input_arrays.items():
        spec = engine_inputs.get(name)
        if spec is None:
            return done("refused", f"converter: input '{name}' is not an engine input")
        if array.dtype.kind not in "fiub":
            return done("refused", f"input '{name}' has type {array.dtype}, which mace_run "
                        "cannot feed")
        # An input the converted model declares int32, int64 or bool (the
        # converter keeps the ONNX type) is fed as what it is; the engine
        # refuses an integer float32 cannot hold instead of rounding it.
        dtype = _FEED_TYPES.get(spec.data_type, np.float32)
        np.save(out_dir / f"input_{safe_name(name)}.npy",
                # (np.ascontiguousarray would make a scalar one-dimensional)
                array.astype(dtype).reshape(spec.shape).copy(order="C"))
    command = [
        str(mace_run), f"--model_file={pb}", f"--model_data_file={weights}",
        "--input_node=" + ",".join(s.name for s in converted.inputs),
        "--input_shape=" + ":".join(",".join(str(d) for d in s.shape)
                                    for s in converted.inputs),
        "--output_node=" + ",".join(s.name for s in converted.outputs),
        f"--input_file={out_dir / 'input'}", f"--output_file={out_dir / 'output'}",
        "--omp_num_threads=1"]
    if not converted.inputs:
        command = [c for c in command if not c.startswith(("--input_node", "--input_shape",
                                                           "--input_file"))]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return done("hang", f"mace_run ran longer than {timeout:g} s")
    if result.returncode < 0:
        return done("crash", f"mace_run died on signal {-result.returncode}: " +
                    first_line(result.stderr))
    if result.returncode != 0:
        return done("refused", "engine: " + first_line(result.stderr or result.stdout))
    for name in output_names:
        path = out_dir / f"output_{safe_name(name)}.npy"
        if not path.exists():
            return done("refused", f"engine: no output '{name}'")
        got = np.load(path)
        expected = want[name]
        problem = compare(got, expected)
        if problem:
            return done("mismatch", f"output '{name}': {problem}")
    return done("pass")


def default_mace_run() -> Path:
    env = os.environ.get("MACE_RUN")
    if env:
        return Path(env)
    try:
        bin_dir = subprocess.run(["bazel", "info", "bazel-bin"], cwd=REPO, text=True,
                                 capture_output=True, check=True).stdout.strip()
        return Path(bin_dir) / "mace" / "tools" / "mace_run"
    except (OSError, subprocess.CalledProcessError):
        return REPO / "bazel-bin" / "mace" / "tools" / "mace_run"


def op_key(outcome: Outcome) -> str:
    """The row a test is counted in: its op type, or, for a test of several
    nodes (ONNX's *_expanded tests and the like), the ops joined by '+'."""
    return outcome.ops[0] if len(outcome.ops) == 1 else "+".join(outcome.ops)


def write_report(path: Path, results: list[Outcome], claimed: set[str],
                 command: str) -> None:
    mine = [r for r in results if r.claimed]
    others = [r for r in results if not r.claimed]
    counts = Counter(r.status for r in mine)
    other_counts = Counter(r.status for r in others)
    passed = counts["pass"]
    rate = passed / len(mine) if mine else 0.0
    lines = [
        "# ONNX node-test conformance",
        "",
        "ONNX ships its own conformance suite: the backend node tests inside the",
        "`onnx` wheel, one small model per test with its inputs and expected",
        "outputs. `tools/onnx_conformance.py` runs each through the real converter",
        "and `mace_run` on the CPU and compares with ONNX's tolerances (float:",
        "`|got - want| <= 1e-7 + 1e-3 |want|`; integers and bools exactly).",
        "A test is claimed when the converter handles every op type in it.",
        "",
        f"Generated by `{command}`.",
        "",
        "## Summary",
        "",
        "| tests | count | pass | mismatch | refused | crash | hang |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| claimed | {len(mine)} | {counts['pass']} | {counts['mismatch']} | "
        f"{counts['refused']} | {counts['crash']} | {counts['hang']} |",
        f"| not claimed | {len(others)} | {other_counts['pass']} | "
        f"{other_counts['mismatch']} | {other_counts['refused']} | "
        f"{other_counts['crash']} | {other_counts['hang']} |",
        "",
        f"Pass rate of the claimed tests: {passed}/{len(mine)} = {100 * rate:.1f} %. "
        f"Claimed ONNX op types: {len(claimed - FOLDED_OPS - CONTROL_FLOW_OPS)} converters, "
        f"plus {', '.join(sorted(FOLDED_OPS))} evaluated at conversion and "
        f"{', '.join(sorted(CONTROL_FLOW_OPS))} run as engine subgraphs.",
        "",
        "## Claimed tests by op",
        "",
        "| op | tests | pass | failures (test: reason) |",
        "|---|---:|---:|---|",
    ]
    by_op: dict[str, list[Outcome]] = defaultdict(list)
    for r in mine:
        by_op[op_key(r)].append(r)
    for key in sorted(by_op):
        rows = by_op[key]
        fails = [f"`{r.name}` ({r.status}): {r.reason}".replace("|", "\\|")
                 for r in rows if r.status != "pass"]
        lines.append(f"| {key} | {len(rows)} | {sum(r.status == 'pass' for r in rows)} | "
                     f"{'<br>'.join(fails) or '-'} |")
    missing = Counter(op for r in others for op in r.ops if op not in claimed)
    lines += ["", "## Ops of the unclaimed tests", "",
              "Op types the converter does not handle, with the number of node tests "
              "that use them. Each of these tests gets a clear refusal (or, where the",
              "importer evaluates the op at conversion, a result).", "",
              ", ".join(f"{op} ({n})" for op, n in sorted(missing.items())), ""]
    path.write_text("\n".join(lines))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="run unclaimed tests too")
    parser.add_argument("--filter", default="", help="regex on the test name")
    parser.add_argument("--mace_run", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--report", type=Path, default=None, help="write a markdown report")
    parser.add_argument("--min-pass-rate", type=float, default=0.0)
    parser.add_argument("--verbose", action="store_true", help="print every test")
    args = parser.parse_args(argv)

    import onnx
    mace_run = args.mace_run or default_mace_run()
    if not mace_run.exists():
        print(f"onnx_conformance: {mace_run} does not exist; build it with "
              "`bazel build //mace/tools:mace_run` or pass --mace_run", file=sys.stderr)
        return 2
    claimed = claimed_ops()
    pattern = re.compile(args.filter)
    cases = []
    for case in sorted(node_test_dir().iterdir()):
        if not (case / "model.onnx").exists() or not pattern.search(case.name):
            continue
        if not args.all:
            ops = model_ops(onnx.load(str(case / "model.onnx"), load_external_data=False))
            if not all(op in claimed for op in ops):
                continue
        cases.append(case)
    results: list[Outcome] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="onnx_conformance_") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {pool.submit(run_case, case, claimed, mace_run, args.timeout,
                               Path(tmp)): case for case in cases}
        for future in concurrent.futures.as_completed(futures):
            case = futures[future]
            try:
                outcome = future.result()
            except Exception:
                outcome = Outcome(case.name, [], False, "crash",
                                  "runner traceback: " + first_line(traceback.format_exc()))
            results.append(outcome)
            if args.verbose or outcome.status in ("crash", "hang"):
                print(f"{outcome.status:8s} {outcome.name}: {outcome.reason}", flush=True)
    results.sort(key=lambda r: r.name)
    mine = [r for r in results if r.claimed]
    counts = Counter(r.status for r in results)
    mine_pass = sum(r.status == "pass" for r in mine)
    rate = mine_pass / len(mine) if mine else 0.0
    print(f"onnx {onnx.__version__}: {len(results)} node tests in "
          f"{time.monotonic() - started:.0f} s; claimed {len(mine)}, passed {mine_pass} "
          f"({100 * rate:.1f} %); " +
          ", ".join(f"{k} {counts[k]}" for k in ("pass", "mismatch", "refused", "crash",
                                                  "hang")))
    if args.report:
        shown = "tools/onnx_conformance.py" + (" --all" if args.all else "")
        write_report(args.report, results, claimed, shown)
        print(f"wrote {args.report}")
    bad = counts["crash"] + counts["hang"]
    if bad:
        print(f"onnx_conformance: {bad} test(s) crashed or hung", file=sys.stderr)
        return 1
    if mine and rate < args.min_pass_rate:
        print(f"onnx_conformance: pass rate {rate:.3f} is below {args.min_pass_rate}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
