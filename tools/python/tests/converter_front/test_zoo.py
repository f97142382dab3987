"""Every zoo model converts, and the numpy runner's output on the MACE model
matches ONNX Runtime on the ONNX model (cosine similarity > 0.9999).

By default a few architectures are checked at a small input size, which
takes seconds. MACE_FULL_ZOO=1 writes every zoo file with make_zoo (checking
its sha256 against checksums.json) and checks each at its real size, which
takes minutes.
"""
import json
import os
import tempfile
import unittest
from pathlib import Path

import onnx

from mace_converter.api import ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, cosine, ort_run, random_feeds
from zoo import classic, make_zoo, modern

FULL = os.environ.get("MACE_FULL_ZOO") == "1"
THRESHOLD = 0.9999


class ZooTest(unittest.TestCase):
    def _check(self, model: onnx.ModelProto, label: str) -> None:
        shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
        feeds = random_feeds({"input": shape})
        want = ort_run(model, feeds)[0]
        converted = convert_model(model, {"input": shape}, ["output"])
        got = run(converted.net_def, converted.weights, feeds)["output"]
        self.assertEqual(got.shape, want.shape, label)
        similarity = cosine(got, want)
        self.assertGreater(similarity, THRESHOLD, label)
        self.assertNotIn("BatchNorm", [op.type for op in converted.net_def.op], label)

    def test_small_inputs(self):
        cases = [(classic.mobilenet_v2, 64), (classic.squeezenet1_1, 64),
                 (modern.shufflenet_v2_x1_0, 64), (modern.deeplab_v3, 48),
                 (modern.inception_v3, 75)]
        for builder, size in cases:
            with self.subTest(builder.__name__):
                self._check(builder(size=size), f"{builder.__name__} at {size}")

    @unittest.skipUnless(FULL, "set MACE_FULL_ZOO=1 to check every zoo model at full size")
    def test_full_zoo(self):
        known = json.loads(make_zoo.CHECKSUMS.read_text())
        with tempfile.TemporaryDirectory() as tmp:
            for name in make_zoo.NAMES:
                with self.subTest(name):
                    paths = make_zoo.write(name, Path(tmp))
                    for path in paths:
                        self.assertEqual(make_zoo.sha256(path), known[path.name]["sha256"],
                                         f"{path.name} is not byte-identical to checksums.json")
                    if name in make_zoo.ONNX_MODELS:
                        self._check(onnx.load(str(paths[0])), name)
                    for path in paths:
                        path.unlink()

    @unittest.skipUnless(FULL, "set MACE_FULL_ZOO=1 to check every zoo model at full size")
    def test_zoo_files_convert_from_disk(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = make_zoo.write("mobilenet_v1", Path(tmp))[0]
            model = convert(ConvertOptions("onnx", path, None,
                                           [TensorSpec("input", [1, 3, 224, 224])],
                                           [TensorSpec("output", [1, 1000])]))
            self.assertEqual(model.outputs[0].shape, [1, 1000])


if __name__ == "__main__":
    unittest.main()
