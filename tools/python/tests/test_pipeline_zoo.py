"""Three zoo models (MobileNet v1, SqueezeNet 1.1, ShuffleNet v2 at 64x64
input, so that a run takes milliseconds) in one mace.Context through the
Python module: outputs bit-identical to engines of their own, one thread pool
instead of three, and one arena the size of the largest plan (+5% at most);
and a run stopped by a cancellation flag or a timeout, then right again.

Needs libmace.so in the bazel-bin beside MACE_RUN
(`bazel build //mace/libmace:libmace.so`).
"""
import os
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_tools import pipeline_bench
from tests.test_mace_run_cli import MACE_RUN

BAZEL_BIN = MACE_RUN.parents[2]
REPO = Path(__file__).resolve().parents[3]
LIBRARY = BAZEL_BIN / "mace" / "libmace" / "libmace.so"
SIZE = 64
THREADS = 2


@unittest.skipUnless(LIBRARY.exists(), f"build //mace/libmace:libmace.so in {BAZEL_BIN}")
class PipelineZooTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.models = pipeline_bench.convert(Path(cls.tmp.name), SIZE)
        cls.env = {"MACE_LIBRARY": str(LIBRARY),
                   "PYTHONPATH": os.pathsep.join([str(REPO / "tools" / "python"),
                                                  str(REPO / "mace" / "python")])}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_one_context_matches_separate_engines(self):
        saved = {key: os.environ.get(key) for key in self.env}
        os.environ.update(self.env)
        try:
            directory = next(iter(self.models.values()))[0].parent
            separate, shared = pipeline_bench.run_both(directory, SIZE, THREADS)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        print(f"\nseparate: {separate}\ncontext:  {shared}", file=sys.stderr)
        self.assertEqual(shared["outputs_sha256"], separate["outputs_sha256"])
        self.assertEqual(separate["worker_threads"], 3 * (THREADS - 1))
        self.assertEqual(shared["worker_threads"], THREADS - 1)
        largest = shared["largest_plan_bytes"]
        self.assertGreaterEqual(shared["arena_bytes"], largest)
        self.assertLessEqual(shared["arena_bytes"], largest * 1.05)
        self.assertGreater(separate["arena_bytes"], shared["arena_bytes"])

    def test_cancelled_and_late_runs_then_right_again(self):
        sys.path.insert(0, str(REPO / "mace" / "python"))
        import mace
        mace.engine._lib = None
        os.environ["MACE_LIBRARY"] = str(LIBRARY)
        graph, weights = self.models["mobilenet_v1"]
        x = np.random.default_rng(4).uniform(-1, 1, (1, 3, SIZE, SIZE)).astype(np.float32)
        with mace.Context(threads=THREADS) as context, \
                mace.Engine(graph, weights, context=context) as engine:
            self.assertEqual(context.threads, THREADS)
            expected = engine.run({"input": x})["output"]
            flag = mace.Cancellation()
            flag.cancel()
            with self.assertRaises(mace.MaceError) as caught:
                engine.run({"input": x}, cancellation=flag)
            self.assertEqual(caught.exception.status, "CANCELLED")
            with self.assertRaises(mace.MaceError) as caught:
                engine.run({"input": x}, timeout_us=1)
            self.assertEqual(caught.exception.status, "DEADLINE_EXCEEDED")
            with self.assertRaises(mace.MaceError) as caught:
                engine.run({"input": x}, timeout_us=-1)
            self.assertEqual(caught.exception.status, "INVALID_ARGS")
            flag.reset()
            again = engine.run({"input": x}, timeout_us=60_000_000, cancellation=flag)["output"]
            self.assertEqual(again.tobytes(), expected.tobytes())


if __name__ == "__main__":
    unittest.main()
