"""Hostile and careless calls of the Python module and of the C API (the
table in tests/api_hostile_cases.py), each in a forked child under a time
and an address-space limit, so that a crash or a hang is caught and counted
like any other outcome.

Needs the host libmace.so and the models of //test:c_api_model (see
tests/test_python_binding.py). As a script it prints the outcome of every
case and the counts; MACE_HOSTILE_PYTHON names another directory holding
the mace package and MACE_LIBRARY another libmace.so:

    MACE_RUN=$(bazel info bazel-bin)/mace/tools/mace_run PYTHONPATH=tools/python \\
        .venv/bin/python tools/python/tests/test_api_hostile.py
"""
from __future__ import annotations

import collections
import importlib
import json
import os
import resource
import select
import signal
import sys
import time
import traceback
import unittest
from pathlib import Path
from types import ModuleType

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.api_hostile_cases import Case, Context, all_cases  # noqa: E402
from tests.test_mace_run_cli import MACE_RUN  # noqa: E402

BAZEL_BIN = MACE_RUN.parents[2]
REPO = Path(__file__).resolve().parents[3]
LIBRARY = Path(os.environ.get("MACE_LIBRARY", BAZEL_BIN / "mace" / "libmace" / "libmace.so"))
MODELS = {name: (BAZEL_BIN / "test" / f"c_api_{name}_model.pb",
                 BAZEL_BIN / "test" / f"c_api_{name}_model.data")
          for name in ("scalar", "typed")}
READY = LIBRARY.exists() and all(p.exists() for pair in MODELS.values() for p in pair)

TIME_LIMIT_S = 10.0
MEMORY_LIMIT = 2 << 30    # bytes of address space a case may add

# The outcomes: what a case must end in is "clear error" or "correct".
CLEAR, CORRECT = "clear error", "correct"
OTHER_ERROR, SILENT, CRASH, HANG = "other error", "silent", "crash", "hang"


def load_mace() -> ModuleType:
    """The mace package: from MACE_HOSTILE_PYTHON, else the repository's."""
    where = os.environ.get("MACE_HOSTILE_PYTHON", str(REPO / "mace" / "python"))
    if where not in sys.path:
        sys.path.insert(0, where)
    mace = importlib.import_module("mace")
    os.environ["MACE_LIBRARY"] = str(LIBRARY)
    mace.engine._lib = None
    return mace


def classify(case: Case, mace: ModuleType) -> dict:
    """Runs one case in this process and says how it ended."""
    try:
        result = case.body(Context(mace, MODELS))
    except mace.MaceError as error:
        if case.status is None:
            return {"outcome": OTHER_ERROR, "detail": str(error)}
        clear = error.status == case.status and case.fragment in str(error)
        return {"outcome": CLEAR if clear else OTHER_ERROR, "detail": str(error)}
    except Exception as error:  # a traceback, not an engine error
        return {"outcome": OTHER_ERROR,
                "detail": "".join(traceback.format_exception_only(type(error), error)).strip()}
    if case.status is not None:
        return {"outcome": SILENT, "detail": f"returned {type(result).__name__}"}
    got, want = result
    same = got.dtype == want.dtype and got.shape == want.shape and \
        np.array_equal(got, want, equal_nan=True)
    return {"outcome": CORRECT if same else SILENT, "detail": "" if same else
            f"got {got.tolist()}, want {want.tolist()}"}


def run_isolated(case: Case, mace: ModuleType, time_limit: float = TIME_LIMIT_S) -> dict:
    """Runs one case in a forked child with the limits; a signal or an exit
    without a report is a crash, no report within the time limit a hang."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_end)
            used = _address_space()
            resource.setrlimit(resource.RLIMIT_AS, (used + MEMORY_LIMIT, used + MEMORY_LIMIT))
            report = json.dumps(classify(case, mace)).encode()
            os.write(write_end, report)
        except BaseException:  # noqa: B036  the child must reach _exit
            code = 3
        finally:
            os._exit(code)
    os.close(write_end)
    chunks, deadline, hung = [], time.monotonic() + time_limit, False
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([pipe], [], [], max(left, 0))
            if not ready:
                hung = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if hung:
        return {"outcome": HANG, "detail": f"no answer in {time_limit} s"}
    if os.WIFSIGNALED(status):
        return {"outcome": CRASH, "detail": f"signal {os.WTERMSIG(status)}"}
    if not chunks:
        return {"outcome": CRASH, "detail": f"exit {os.WEXITSTATUS(status)} without a report"}
    return json.loads(b"".join(chunks))


def _address_space() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def run_all(mace: ModuleType) -> list[tuple[Case, dict]]:
    sys.stdout.flush()
    sys.stderr.flush()
    return [(case, run_isolated(case, mace)) for case in all_cases()]


def counts(results: list[tuple[Case, dict]]) -> dict[str, int]:
    return collections.Counter(report["outcome"] for _, report in results)


@unittest.skipUnless(READY, f"build //mace/libmace:libmace.so and //test:c_api_model in "
                     f"{BAZEL_BIN}")
class HostileCallsTest(unittest.TestCase):
    def test_every_case_ends_as_expected(self):
        results = run_all(load_mace())
        self.assertGreaterEqual(len(results), 80)
        wrong = [f"{case.name}: {report['outcome']}: {report['detail']}"
                 for case, report in results
                 if report["outcome"] != (CLEAR if case.status else CORRECT)]
        self.assertEqual(wrong, [], "\n".join(wrong))
        surfaces = {case.surface for case, _ in results}
        self.assertEqual(surfaces, {"python", "c"})

    def test_the_harness_catches_a_crash_a_hang_and_a_silent_accept(self):
        mace = load_mace()
        crash = Case("crash", "python", lambda c: os.kill(os.getpid(), signal.SIGSEGV))
        self.assertEqual(run_isolated(crash, mace)["outcome"], CRASH)
        hang = Case("hang", "python", lambda c: time.sleep(60))
        started = time.monotonic()
        self.assertEqual(run_isolated(hang, mace, time_limit=1.0)["outcome"], HANG)
        self.assertLess(time.monotonic() - started, 5)
        silent = Case("silent", "python", lambda c: None, "INVALID_ARGS", "x")
        self.assertEqual(run_isolated(silent, mace)["outcome"], SILENT)
        greedy = Case("greedy", "python", lambda c: bytearray(MEMORY_LIMIT + (1 << 30)))
        self.assertEqual(run_isolated(greedy, mace)["outcome"], OTHER_ERROR)


def main() -> int:
    if not READY:
        print(f"needs {LIBRARY} and the c_api models in {BAZEL_BIN}")
        return 1
    results = run_all(load_mace())
    for case, report in results:
        expected = CLEAR if case.status else CORRECT
        mark = "ok " if report["outcome"] == expected else "BAD"
        print(f"{mark} [{case.surface}] {case.name}: {report['outcome']}"
              + (f" ({report['detail']})" if report["detail"] and mark == "BAD" else ""))
    total = counts(results)
    print(f"{len(results)} cases: " + ", ".join(
        f"{total.get(k, 0)} {k}" for k in (CLEAR, CORRECT, OTHER_ERROR, SILENT, CRASH, HANG)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
