"""The reduced transformer zoo models of
converter_front/test_zoo_transformers.py, with their LayerNorms and GELUs
fused (and their attentions), run by the C++ engine through mace_run and
match ONNX Runtime; converted with dynamic_quantize, they match the numpy
runner's int8 computation and stay close to ONNX Runtime's float outputs.

Needs the host mace_run binary (MACE_RUN, default
bazel-bin/mace/tools/mace_run), which tools/test.sh builds first.
"""
import unittest

from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, cosine, ort_run
from tests.converter_front.test_dynamic_quantize import (DYNAMIC_THRESHOLD, embedding_feeds,
                                                         embedding_model)
from tests.converter_front.test_zoo_transformers import SMALL, THRESHOLD, VOCABULARY, feeds_for
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN


class TransformerZooOnEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")

    def test_reduced_sizes(self):
        for name, builder in SMALL.items():
            with self.subTest(name):
                model = builder()
                feeds = feeds_for(model, VOCABULARY["small"])
                output = model.graph.output[0].name
                want = ort_run(model, feeds)[0]
                converted = convert_model(model, {k: list(v.shape) for k, v in feeds.items()},
                                          [output])
                types = {op.type for op in converted.net_def.op}
                self.assertTrue({"LayerNorm", "Unary", "Attention"} <= types, types)
                got = run_converted(self, converted, feeds)[output]
                self.assertEqual(got.shape, want.shape, name)
                self.assertGreater(cosine(got, want), THRESHOLD, name)

    def test_dynamic_quantize(self):
        for name, builder in SMALL.items():
            with self.subTest(name):
                model = builder()
                feeds = feeds_for(model, VOCABULARY["small"])
                output = model.graph.output[0].name
                converted = convert_model(model, {k: list(v.shape) for k, v in feeds.items()},
                                          [output], dynamic_quantize=True)
                got = run_converted(self, converted, feeds)[output]
                # The same integers as the numpy runner; the float steps
                # around them round differently.
                int8 = run(converted.net_def, converted.weights, feeds)[output]
                self.assertGreater(cosine(got, int8), 0.99999, name)
                self.assertGreater(cosine(got, ort_run(model, feeds)[0]), DYNAMIC_THRESHOLD,
                                   name)

    def test_dynamic_quantize_embedding(self):
        feeds = embedding_feeds()
        converted = convert_model(embedding_model(), {"ids": [1, 8]}, ["out"],
                                  dynamic_quantize=True)
        self.assertIn("GatherDequantize", [op.type for op in converted.net_def.op])
        got = run_converted(self, converted, feeds)["out"]
        want = run(converted.net_def, converted.weights, feeds)["out"]
        self.assertGreater(cosine(got, want), 0.99999)
        self.assertGreater(cosine(got, ort_run(embedding_model(), feeds)[0]), DYNAMIC_THRESHOLD)


if __name__ == "__main__":
    unittest.main()
