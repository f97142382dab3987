"""LiteRT as the reference of `converter.py run --validate`
(mace_converter/tflite_reference.py): outputs by name with or without ':0',
intermediate tensors, and names the model does not have."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import numpy as np
import tflite

from mace_converter.progress import UserError
from mace_converter.tflite_reference import run_litert
from tests.tflite.builder import Op, Spec, T, build


def relu_then_add() -> bytes:
    """y = relu(x) + c, with relu(x) in the intermediate tensor 'r'."""
    constant = np.arange(6, dtype=np.float32).reshape(2, 3)
    return build(Spec([T("x", [2, 3]), T("r", [2, 3]), T("c", [2, 3], 1), T("y:0", [2, 3])],
                      [Op(tflite.BuiltinOperator.RELU, [0], [1]),
                       Op(tflite.BuiltinOperator.ADD, [1, 2], [3])],
                      [0], [3], [constant.astype("<f4").tobytes()]))


class LiteRtReferenceTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.path = Path(tmp.name) / "model.tflite"
        self.path.write_bytes(relu_then_add())
        self.x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)

    def test_outputs_and_intermediates(self):
        what, results = run_litert(self.path, {"x": self.x}, ["y", "r"])
        self.assertTrue(what.startswith("LiteRT "), what)
        np.testing.assert_array_equal(results["r"], np.maximum(self.x, 0))
        np.testing.assert_array_equal(results["y"], np.maximum(self.x, 0) +
                                      np.arange(6).reshape(2, 3))

    def test_unknown_names(self):
        with self.assertRaisesRegex(UserError, "'z' is not an input"):
            run_litert(self.path, {"z": self.x}, ["y"])
        with self.assertRaisesRegex(UserError, "no tensor 'q'"):
            run_litert(self.path, {"x": self.x}, ["q"])


if __name__ == "__main__":
    unittest.main()
