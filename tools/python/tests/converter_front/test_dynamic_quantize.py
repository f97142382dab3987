"""dynamic_quantize: every FullyConnected with a constant weight becomes a
DynamicQuantizedFullyConnected with per-feature int8 weights, the other ops
stay, and the reduced transformer zoo models stay close to ONNX Runtime's
float outputs (numpy runner; the engine's side is in
test_zoo_transformers_mace_run.py)."""
from __future__ import annotations

import unittest

import numpy as np

from mace_converter.numpy_ops.nn import quantize_rows_dynamic
from mace_converter.numpy_runner import run
from mace_converter.transforms.dynamic_quantize import quantize_weight_per_row
from tests.converter_front.helpers import convert_model, cosine, ort_run
from tests.converter_front.test_zoo_transformers import SMALL, VOCABULARY, feeds_for

# int8 weights and uint8 rows against float: the zoo models stay above it.
DYNAMIC_THRESHOLD = 0.999


class DynamicQuantizeTest(unittest.TestCase):
    def test_weight_per_row(self):
        weight = np.array([[0.5, -1.0, 0.25], [0.0, 0.0, 0.0], [3.0, 1.0, -2.0]], np.float32)
        values, scales = quantize_weight_per_row(weight)
        self.assertEqual(values.dtype, np.int8)
        np.testing.assert_array_equal(values, [[64, -127, 32], [0, 0, 0], [127, 42, -85]])
        np.testing.assert_allclose(scales, [1 / 127, 1.0, 3 / 127], rtol=1e-7)
        # Each weight within half a step of its row's scale.
        error = np.abs(values * scales[:, None] - weight)
        self.assertTrue((error <= scales[:, None] / 2 + 1e-7).all())

    def test_rows_quantized_like_the_engine(self):
        # The engine's hand-checked row (mace/ops/cpu/dynamic_quantized_
        # fully_connected_test.cc): 0.5 is 42.5 steps, rounded half to even.
        q, scale, zero = quantize_rows_dynamic(np.array([[-1, 0.5, 2, 0], [0, 0, 0, 0]],
                                                        np.float32))
        np.testing.assert_array_equal(q, [[0, 127, 255, 85], [0, 0, 0, 0]])
        np.testing.assert_array_equal(zero, [85, 0])
        self.assertEqual(scale[1], 1.0)

    def test_transformer_zoo_close_to_float(self):
        for name, builder in SMALL.items():
            with self.subTest(name):
                model = builder()
                feeds = feeds_for(model, VOCABULARY["small"])
                output = model.graph.output[0].name
                shapes = {k: list(v.shape) for k, v in feeds.items()}
                plain = convert_model(model, shapes, [output])
                dynamic = convert_model(model, shapes, [output], dynamic_quantize=True)
                before = [op.type for op in plain.net_def.op]
                after = [op.type for op in dynamic.net_def.op]
                self.assertGreater(before.count("FullyConnected"), 0)
                self.assertEqual(after.count("DynamicQuantizedFullyConnected"),
                                 before.count("FullyConnected"))
                self.assertNotIn("FullyConnected", after)
                self.assertIn(f"dynamic_quantize: {before.count('FullyConnected')} "
                              "FullyConnected op(s) with int8 weights, activations quantized "
                              "per row at run time", dynamic.log)
                int8 = [t for t in dynamic.net_def.tensors if t.data_type == 5]  # DT_INT8
                self.assertEqual(len(int8), before.count("FullyConnected"))
                self.assertLess(len(dynamic.weights), len(plain.weights))
                want = ort_run(model, feeds)[0]
                got = run(dynamic.net_def, dynamic.weights, feeds)[output]
                self.assertGreater(cosine(got, want), DYNAMIC_THRESHOLD, name)


if __name__ == "__main__":
    unittest.main()
