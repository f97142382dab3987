"""mace_run end to end on a small model: a correct run, and every kind of bad
input giving a non-zero exit and one clear message, never a crash.

Needs the host mace_run binary; tools/test.sh builds it first and passes its
path in MACE_RUN (default: bazel-bin/mace/tools/mace_run).
"""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_tools import builder

REPO = Path(__file__).resolve().parents[3]
MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))


def make_model(directory: Path) -> tuple[Path, Path, np.ndarray]:
    """A 1x1 conv with bias and ReLU: 2 -> 3 channels on a 4x4 image."""
    rng = np.random.default_rng(7)
    weight = rng.standard_normal((3, 2, 1, 1)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    net = builder.NetBuilder("tiny")
    net.add_input("x", [1, 2, 4, 4])
    net.add_op("Conv2D", ["x", net.add_weight("w", weight), net.add_weight("b", bias)], "y",
               name="conv", activation="RELU")
    net.add_output("y", [1, 3, 4, 4])
    pb, data = directory / "tiny.pb", directory / "tiny.data"
    net.save(pb, data)
    return pb, data, (weight, bias)


class MaceRunCliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.pb, cls.data, (cls.weight, cls.bias) = make_model(cls.dir)
        cls.image = np.random.default_rng(11).uniform(-1, 1, (1, 2, 4, 4)).astype(np.float32)
        np.save(cls.dir / "in_x.npy", cls.image)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_mace(self, *flags: str, pb: Path | None = None, data: Path | None = None):
        command = [str(MACE_RUN), f"--model_file={pb or self.pb}",
                   f"--model_data_file={data or self.data}", "--input_node=x",
                   "--input_shape=1,2,4,4", "--output_node=y", "--output_shape=1,3,4,4",
                   *flags]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    def expect_failure(self, result, *fragments: str):
        self.assertNotEqual(result.returncode, 0, result.stdout)
        # A clean error exit, not a signal (crash) or an abort.
        self.assertGreater(result.returncode, 0, result.stderr)
        for fragment in fragments:
            self.assertIn(fragment, result.stderr)

    def test_runs_and_matches_numpy(self):
        result = self.run_mace(f"--input_file={self.dir / 'in'}",
                               f"--output_file={self.dir / 'out'}", "--round=3",
                               "--benchmark", "--memory_report")
        self.assertEqual(result.returncode, 0, result.stderr)
        got = np.load(self.dir / "out_y.npy")
        expected = np.einsum("oc,nchw->nohw", self.weight[:, :, 0, 0], self.image)
        expected = np.maximum(expected + self.bias[None, :, None, None], 0)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        self.assertIn("Conv2D", result.stdout)   # the per-op table
        self.assertIn("median", result.stdout)   # latency statistics

    def test_corrupt_graph(self):
        bad = self.dir / "corrupt.pb"
        bad.write_bytes(b"\xff\xff\xff\xff not a protobuf")
        self.expect_failure(self.run_mace(pb=bad), "corrupt.pb")

    def test_truncated_graph(self):
        bad = self.dir / "truncated.pb"
        bad.write_bytes(self.pb.read_bytes()[:-7])
        self.expect_failure(self.run_mace(pb=bad))

    def test_weights_shorter_than_offsets(self):
        short = self.dir / "short.data"
        short.write_bytes(self.data.read_bytes()[:20])
        self.expect_failure(self.run_mace(data=short), "weight", "bytes")

    def test_missing_files(self):
        self.expect_failure(self.run_mace(pb=self.dir / "absent.pb"), "absent.pb")
        self.expect_failure(self.run_mace(data=self.dir / "absent.data"), "absent.data")

    def test_unknown_op(self):
        net = builder.NetBuilder("unknown")
        net.add_input("x", [1, 2, 4, 4])
        net.add_op("FrobnicateOp", ["x"], "y", name="mystery")
        net.add_output("y", [1, 2, 4, 4])
        pb, data = self.dir / "unknown.pb", self.dir / "unknown.data"
        net.save(pb, data)
        self.expect_failure(self.run_mace(pb=pb, data=data), "FrobnicateOp", "mystery")

    def test_wrong_input_shape(self):
        result = self.run_mace("--input_shape=1,5,4,4")
        # The flags name the shape twice; the engine must refuse, not guess.
        self.expect_failure(result, "x")

    def test_wrong_input_name(self):
        self.expect_failure(self.run_mace("--input_node=nope"), "nope")

    def test_wrong_input_file_size(self):
        raw = self.dir / "small_x"
        raw.write_bytes(b"\0" * 12)
        self.expect_failure(self.run_mace(f"--input_file={self.dir / 'small'}"), "small_x")

    def test_bad_flags(self):
        self.expect_failure(self.run_mace("--round=-3"), "round")
        self.expect_failure(self.run_mace("--no_such_flag=1"), "no_such_flag")
        self.expect_failure(self.run_mace("--input_shape=1,a,4"), "input_shape")
        self.expect_failure(self.run_mace("--memory_strategy=fastest"), "memory_strategy")
        self.expect_failure(self.run_mace("--device=TPU"), "TPU")


if __name__ == "__main__":
    unittest.main()
