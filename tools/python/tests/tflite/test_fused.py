"""Fused activations on an op written with the flatbuffers builder (ADD,
x + 0.5 on values from -3 to 8): RELU, RELU_N1_TO_1 and RELU6 match
LiteRT; TANH and SIGN_BIT, which LiteRT's kernels ignore, are refused."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import numpy as np
import tflite

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.tflite.builder import Op, Spec, T, build
from tests.tflite.litert import convert_tflite, litert_run

X = np.array([[-3.0, -1.0, -0.2], [0.1, 1.0, 8.0]], np.float32)


def add_model(activation: int) -> bytes:
    def options(b) -> int:
        tflite.AddOptionsStart(b)
        tflite.AddOptionsAddFusedActivationFunction(b, activation)
        return tflite.AddOptionsEnd(b)
    constant = np.full((2, 3), 0.5, np.float32)
    return build(Spec([T("x", [2, 3]), T("c", [2, 3], 1), T("y", [2, 3])],
                      [Op(tflite.BuiltinOperator.ADD, [0, 1], [2],
                          (tflite.BuiltinOptions.AddOptions, options))],
                      [0], [2], [constant.astype("<f4").tobytes()]))


class FusedActivationTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def write(self, activation: int) -> Path:
        path = self.dir / f"add_{activation}.tflite"
        path.write_bytes(add_model(activation))
        return path

    def test_clamping_activations_match_litert(self):
        kinds = tflite.ActivationFunctionType
        for activation in (kinds.NONE, kinds.RELU, kinds.RELU_N1_TO_1, kinds.RELU6):
            with self.subTest(activation=activation):
                path = self.write(activation)
                expected = litert_run(path, {"x": X})["y"]
                converted = convert_tflite(path, {"x": [2, 3]}, ["y"])
                got = run(converted.net_def, converted.weights, {"x": X})["y"]
                np.testing.assert_array_equal(got, expected)

    def test_activations_litert_ignores_are_refused(self):
        kinds = tflite.ActivationFunctionType
        for activation, name in ((kinds.TANH, "TANH"), (kinds.SIGN_BIT, "SIGN_BIT")):
            with self.subTest(name):
                with self.assertRaisesRegex(ConversionError, f"TFLite ADD operator 0 .*fused "
                                                             f"activation {name} is not "
                                                             "supported"):
                    convert_tflite(self.write(activation), {"x": [2, 3]}, ["y"])


if __name__ == "__main__":
    unittest.main()
