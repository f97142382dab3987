"""Every TFLite op the frontend converts, in models written by TensorFlow's
TFLiteConverter (op_models.py, weights and inputs from seed 0), converted and
run by the numpy runner against LiteRT. Each model must contain the ops its
case names, so a converter change that stops writing an op fails here
rather than leaving it untested."""
from __future__ import annotations

import unittest

import numpy as np

from mace_converter.frontends import tflite_model
from mace_converter.frontends.tflite_ops import CONVERTERS
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import cosine
from tests.tflite.litert import (TfliteModelCase, convert_tflite, io_names, litert_run,
                                 write_tflite)
from tests.tflite.op_models import CASES

MIN_COSINE = 0.999
# Max abs error relative to the output's largest |value|.
MAX_RELATIVE_ERROR = 1e-4


def fused_activations(model: tflite_model.TfliteModel) -> set[int]:
    return {int(op.options.FusedActivationFunction()) for op in model.operators
            if op.options is not None and hasattr(op.options, "FusedActivationFunction")}


class TfliteOpsTest(TfliteModelCase):
    def check_case(self, case) -> None:
        generator = np.random.default_rng(0)
        path = write_tflite(self.dir / f"{case.name}.tflite", case.build(self.tf, generator),
                            case.shapes, dynamic=case.dynamic)
        model = tflite_model.read(path)
        present = {op.op_type for op in model.operators}
        self.assertLessEqual(set(case.ops), present, f"{case.name}: TensorFlow wrote {present}")
        self.assertLessEqual(set(case.fused), fused_activations(model), case.name)
        names, outputs = io_names(path)
        inputs = {name: list(shape) for name, shape in zip(names, case.shapes)}
        feeds = {n: generator.uniform(-1, 1, s).astype(np.float32) for n, s in inputs.items()}
        expected = litert_run(path, feeds)
        converted = convert_tflite(path, inputs, outputs)
        got = run(converted.net_def, converted.weights, feeds)
        for name in outputs:
            want = expected[name]
            self.assertEqual(list(got[name].shape), list(want.shape), f"{case.name}/{name}")
            self.assertGreaterEqual(cosine(got[name], want), MIN_COSINE, f"{case.name}/{name}")
            scale = max(float(np.abs(want).max()), 1e-6)
            error = float(np.abs(got[name].astype(np.float64) - want).max()) / scale
            self.assertLessEqual(error, MAX_RELATIVE_ERROR, f"{case.name}/{name}")

    def test_cases(self):
        for case in CASES:
            with self.subTest(case.name):
                self.check_case(case)

    def test_every_converted_op_has_a_case(self):
        # QUANTIZE and DEQUANTIZE: test_weights.py; MediaPipe's custom op
        # Convolution2DTransposeBias: its selfie segmentation models in
        # test_wheel_models.py; BROADCAST_TO: test_broadcast_to.py; the
        # variable ops: test_variables.py; the signal ops: test_signal.py;
        # MediaPipe's argmax pooling pair: test_argmax_pool.py.
        covered = {op for case in CASES for op in case.ops} | {
            "QUANTIZE", "DEQUANTIZE", "Convolution2DTransposeBias", "BROADCAST_TO",
            "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "RFFT2D", "COMPLEX_ABS", "REAL",
            "IMAG", "MaxPoolingWithArgmax2D", "MaxUnpooling2D"}
        self.assertEqual(set(CONVERTERS) - covered, set())


if __name__ == "__main__":
    unittest.main()
