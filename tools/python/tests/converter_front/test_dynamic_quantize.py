"""dynamic_quantize: every FullyConnected with a constant weight becomes a
DynamicQuantizedFullyConnected with per-feature int8 weights, the other ops
stay, and the reduced transformer zoo models stay close to ONNX Runtime's
float outputs (numpy runner; the engine's side is in
test_zoo_transformers_mace_run.py)."""
from __future__ import annotations

import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

from mace_converter.numpy_ops.nn import quantize_rows_dynamic
from mace_converter.numpy_runner import run
from mace_converter.transforms.dynamic_quantize import quantize_weight_per_row
from tests.converter_front.helpers import convert_model, cosine, initializer, ort_run, rng
from tests.converter_front.test_zoo_transformers import SMALL, VOCABULARY, feeds_for

# int8 weights and uint8 rows against float: the zoo models stay above it.
DYNAMIC_THRESHOLD = 0.999


def embedding_model(vocabulary: int = 1024, width: int = 64) -> onnx.ModelProto:
    """ids int64 [1, 8] -> Gather of a [vocabulary, width] table -> MatMul
    by a [width, 16] weight + bias: the table is large enough to be
    quantized (MIN_TABLE_VALUES) at the default sizes."""
    generator = rng(40)
    table = generator.normal(0, 1, (vocabulary, width)).astype(np.float32)
    weight = generator.normal(0, 0.2, (width, 16)).astype(np.float32)
    bias = generator.normal(0, 0.1, (16,)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["rows"]),
         helper.make_node("MatMul", ["rows", "weight"], ["product"]),
         helper.make_node("Add", ["product", "bias"], ["out"])],
        "embedding",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 8, 16])],
        [initializer("table", table), initializer("weight", weight),
         initializer("bias", bias)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def embedding_feeds(vocabulary: int = 1024) -> dict[str, np.ndarray]:
    return {"ids": np.array([[0, 5, vocabulary - 1, 17, 17, 300, 2, 999]], np.int64)}


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

    def test_embedding_table(self):
        feeds = embedding_feeds()
        converted = convert_model(embedding_model(), {"ids": [1, 8]}, ["out"],
                                  dynamic_quantize=True)
        types = [op.type for op in converted.net_def.op]
        self.assertIn("GatherDequantize", types)
        self.assertIn("DynamicQuantizedFullyConnected", types)
        self.assertNotIn("Gather", types)
        self.assertIn("dynamic_quantize: 1 embedding table(s) gathered from int8 rows",
                      converted.log)
        want = ort_run(embedding_model(), feeds)[0]
        got = run(converted.net_def, converted.weights, feeds)["out"]
        self.assertGreater(cosine(got, want), DYNAMIC_THRESHOLD)
        # A table below MIN_TABLE_VALUES stays float.
        small = convert_model(embedding_model(vocabulary=1000), {"ids": [1, 8]}, ["out"],
                              dynamic_quantize=True)
        self.assertIn("Gather", [op.type for op in small.net_def.op])

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
