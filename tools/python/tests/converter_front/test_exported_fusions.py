"""What the transformer fusions find in real exported encoders (pinned in
tools/requirements-models.txt; see test_exported_models): the counts the
conversion log gives, with the numpy runner still matching ONNX Runtime."""
from __future__ import annotations

import unittest

from mace_converter.numpy_runner import run
from tests.converter_front.test_exported_models import (MINILM, SMART_TURN, ExportedModel,
                                                        assert_matches, convert_case, load,
                                                        reference)


class ExportedFusionsTest(unittest.TestCase):
    def _check(self, case: ExportedModel, lines: list[str]) -> list[str]:
        path, model = load(self, case)
        feeds, expected = reference(case, model)
        converted = convert_case(case, path)
        assert_matches(self, case, f"{path.name} (fused)", expected,
                       run(converted.net_def, converted.weights, feeds))
        found = [line for line in converted.log if "LayerNorm(s)" in line
                 or "GELU(s)" in line or "attention(s)" in line]
        self.assertEqual(found, lines, path.name)
        return [op.type + "".join(f":{a.s.decode()}" for a in op.arg
                                  if op.type == "Unary" and a.name == "type")
                for op in converted.net_def.op]

    def test_minilm_int8(self):
        # Its exporter already writes LayerNormalization (6 layers x 2 + 1).
        types = self._check(MINILM, ["fused 6 GELU(s) (Erf form)",
                                     "fused 6 attention(s) (additive mask)"])
        self.assertEqual(types.count("LayerNorm"), 13)
        self.assertEqual(types.count("Unary:GELU"), 6)
        self.assertEqual(types.count("Attention"), 6)
        self.assertNotIn("Softmax", types)

    def test_smart_turn_v3_2(self):
        # QDQ pairs round the attentions' scores and probabilities to uint8:
        # they become the Attention ops' fake quantization; the GELUs run in
        # float.
        types = self._check(SMART_TURN, ["fused 8 GELU(s) (Erf form)",
                                         "fused 4 attention(s) (no mask, fake-quantized softmax)"])
        self.assertEqual(types.count("Unary:GELU"), 8)
        self.assertNotIn("Unary:ERF", types)
        self.assertEqual(types.count("Attention"), 4)
        # The one Softmax left weighs the frames of the classifier's pooling.
        self.assertEqual(types.count("Softmax"), 1)


if __name__ == "__main__":
    unittest.main()
