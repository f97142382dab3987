"""The transformer zoo: each model converts with its LayerNorms, GELUs and
attentions fused, and the numpy runner's output on the MACE
model matches ONNX Runtime on the ONNX model (cosine similarity > 0.9999).

By default each model is checked in a reduced size (fewer layers, narrower,
shorter sequences), which takes about a second in all. MACE_FULL_ZOO=1
also writes each full-size file with make_zoo (checking its sha256 against
checksums.json) and checks it, which takes minutes.
"""
from __future__ import annotations

import json
import os
import tempfile
import unittest
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto

from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, cosine, ort_run, rng
from zoo import make_zoo, transformers

FULL = os.environ.get("MACE_FULL_ZOO") == "1"
THRESHOLD = 0.9999

# Reduced variants of each zoo transformer, by zoo name.
SMALL: dict[str, Callable[[], onnx.ModelProto]] = {
    "bert_torch": lambda: transformers.bert_torch(layers=2, hidden=64, heads=4, seq=16,
                                                  vocab=1000),
    "bert_tf": lambda: transformers.bert_tf(layers=2, hidden=64, heads=4, seq=16, vocab=1000),
    "vit_tiny": lambda: transformers.vit_tiny(size=32, layers=2, hidden=48, heads=3,
                                              classes=10),
    "whisper_tiny_encoder": lambda: transformers.whisper_tiny_encoder(
        frames=64, layers=2, hidden=48, heads=3, mels=16),
}
VOCABULARY = {"small": 1000, "full": transformers.BERT_VOCAB}


def expected_log(name: str, layers: int) -> list[str]:
    """The fusion lines the conversion log must hold."""
    if name.startswith("bert"):
        form, gelu = ("PyTorch", "Erf") if name == "bert_torch" else ("tf2onnx", "tanh")
        mask = "additive mask" if name == "bert_torch" else "boolean mask, Einsum"
        return [f"fused {2 * layers + 1} LayerNorm(s) ({form} form)",
                f"fused {layers} GELU(s) ({gelu} form)",
                f"fused {layers} attention(s) ({mask})"]
    gelus = layers + (2 if name == "whisper_tiny_encoder" else 0)
    return [f"fused {2 * layers + 1} LayerNorm(s) (PyTorch form)",
            f"fused {gelus} GELU(s) (Erf form)",
            f"fused {layers} attention(s) (no mask)"]


def feeds_for(model: onnx.ModelProto, vocabulary: int) -> dict[str, np.ndarray]:
    """Token ids in the vocabulary, a mask that hides the last quarter, and
    features in [-1, 1)."""
    feeds = {}
    for index, value in enumerate(model.graph.input):
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        if value.type.tensor_type.elem_type != TensorProto.INT64:
            feeds[value.name] = rng(index).uniform(-1, 1, shape).astype(np.float32)
        elif "mask" in value.name:
            mask = np.ones(shape, np.int64)
            mask[..., -max(1, shape[-1] // 4):] = 0
            feeds[value.name] = mask
        else:
            feeds[value.name] = rng(index).integers(0, vocabulary, shape).astype(np.int64)
    return feeds


class TransformerZooTest(unittest.TestCase):
    def _check(self, name: str, model: onnx.ModelProto, vocabulary: int) -> None:
        feeds = feeds_for(model, vocabulary)
        output = model.graph.output[0].name
        want = ort_run(model, feeds)[0]
        converted = convert_model(model, {k: list(v.shape) for k, v in feeds.items()}, [output])
        got = run(converted.net_def, converted.weights, feeds)[output]
        self.assertEqual(got.shape, want.shape, name)
        similarity = cosine(got, want)
        self.assertGreater(similarity, THRESHOLD, name)
        layers = sum(1 for node in model.graph.node if node.op_type == "Softmax")
        for line in expected_log(name, layers):
            self.assertIn(line, converted.log, name)
        types = [op.type for op in converted.net_def.op]
        self.assertNotIn("Reduce", types, f"{name}: a LayerNorm was left unfused")
        self.assertEqual(types.count("Attention"), layers, name)
        self.assertNotIn("Softmax", types, f"{name}: an attention was left unfused")

    def test_reduced_sizes(self):
        for name, builder in SMALL.items():
            with self.subTest(name):
                self._check(name, builder(), VOCABULARY["small"])

    @unittest.skipUnless(FULL, "set MACE_FULL_ZOO=1 to check the full-size transformer zoo")
    def test_full_size(self):
        known = json.loads(make_zoo.CHECKSUMS.read_text())
        with tempfile.TemporaryDirectory() as tmp:
            for name in make_zoo.TRANSFORMER_MODELS:
                with self.subTest(name):
                    path = make_zoo.write(name, Path(tmp))[0]
                    self.assertEqual(make_zoo.sha256(path), known[path.name]["sha256"],
                                     f"{path.name} is not byte-identical to checksums.json")
                    self._check(name, onnx.load(str(path)), VOCABULARY["full"])
                    path.unlink()


if __name__ == "__main__":
    unittest.main()
