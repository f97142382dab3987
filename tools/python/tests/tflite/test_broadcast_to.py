"""BROADCAST_TO, which TensorFlow's converter lowers to TILE by itself, in
models written by hand (builder.py): against LiteRT, and refused with a
clear error where the shapes do not broadcast."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import numpy as np
import tflite

from mace_converter.numpy_runner import run
from tests.tflite.builder import Op, Spec, T, build
from tests.tflite.litert import convert_tflite, litert_run

INT32 = 2


def broadcast_model(shape: list[int], target: list[int]) -> bytes:
    """y = BROADCAST_TO(x, target) + 0 for a float32 input x of `shape`
    (the ADD keeps the output from being a bare constant-shaped copy)."""
    zero = np.zeros(1, np.float32)
    return build(Spec([T("x", shape), T("shape", [len(target)], 1, INT32), T("b", target),
                       T("zero", [1], 2), T("y", target)],
                      [Op(tflite.BuiltinOperator.BROADCAST_TO, [0, 1], [2]),
                       Op(tflite.BuiltinOperator.ADD, [2, 3], [4])],
                      [0], [4], [np.asarray(target, "<i4").tobytes(), zero.tobytes()]))


class BroadcastToTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def check(self, shape: list[int], target: list[int]) -> None:
        path = self.dir / "broadcast.tflite"
        path.write_bytes(broadcast_model(shape, target))
        x = np.random.default_rng(5).uniform(-1, 1, shape).astype(np.float32)
        want = litert_run(path, {"x": x})["y"]
        converted = convert_tflite(path, {"x": shape}, ["y"])
        got = run(converted.net_def, converted.weights, {"x": x})["y"]
        np.testing.assert_array_equal(got, want)

    def test_same_rank(self):
        self.check([1, 1, 3, 1], [2, 4, 3, 5])

    def test_lower_rank_input(self):
        self.check([3], [2, 4, 5, 3])
        self.check([4, 1], [2, 4, 6])

    def test_identity(self):
        self.check([2, 3], [2, 3])

    def test_shapes_that_do_not_broadcast_are_refused(self):
        path = self.dir / "bad.tflite"
        path.write_bytes(broadcast_model([2, 3], [2, 4]))
        with self.assertRaisesRegex(Exception, r"does not broadcast to \[2, 4\]"):
            convert_tflite(path, {"x": [2, 3]}, ["y"])


if __name__ == "__main__":
    unittest.main()
