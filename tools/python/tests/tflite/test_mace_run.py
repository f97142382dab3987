"""TFLite models end to end: converted and run by the engine (mace_run)
against LiteRT, float models and an integer one on the engine's uint8
kernels (quantize: 1 with the model's own scales)."""
from __future__ import annotations

import os
import unittest
from pathlib import Path

import numpy as np

from mace_converter.api import ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.frontends import tflite_model
from mace_converter.progress import REPO
from mace_converter.quantize.graph_pass import QuantizeSettings
from tests.converter_front.helpers import cosine, mace_run_outputs
from tests.tflite.litert import TfliteModelCase, io_names, litert_run, write_tflite
from tests.tflite.op_models import CASES
from tests.tflite.test_weights import MAX_QUANTA, output_scales

MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))


def mace_run(converted, feeds: dict[str, np.ndarray], outputs: list[str]
             ) -> dict[str, np.ndarray]:
    return mace_run_outputs(MACE_RUN, converted, feeds, outputs)


@unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
class TfliteMaceRunTest(TfliteModelCase):
    def model(self, name: str, optimize=None):
        case = next(c for c in CASES if c.name == name)
        generator, calibration = np.random.default_rng(0), np.random.default_rng(1)

        def representative():
            for _ in range(8):
                yield [calibration.uniform(-1, 1, s).astype(np.float32) for s in case.shapes]
        path = write_tflite(self.dir / f"{name}_{optimize}.tflite",
                            case.build(self.tf, generator), case.shapes, optimize=optimize,
                            representative=representative)
        names, outputs = io_names(path)
        inputs = {n: list(s) for n, s in zip(names, case.shapes)}
        feeds = {n: generator.uniform(-1, 1, s).astype(np.float32) for n, s in inputs.items()}
        return path, inputs, outputs, feeds

    def converted(self, path, inputs, outputs, **options):
        return convert(ConvertOptions(
            platform="tflite", model_file=path, weight_file=None,
            inputs=[TensorSpec(n, s, data_format="NHWC") for n, s in inputs.items()],
            outputs=[TensorSpec(n, [], data_format="NHWC") for n in outputs], **options))

    def test_float_models(self):
        for name in ("convolutions", "spatial", "activations"):
            with self.subTest(name):
                path, inputs, outputs, feeds = self.model(name)
                expected = litert_run(path, feeds)
                got = mace_run(self.converted(path, inputs, outputs), feeds, outputs)
                for out in outputs:
                    self.assertEqual(got[out].shape, expected[out].shape, f"{name}/{out}")
                    self.assertGreaterEqual(cosine(got[out], expected[out]), 0.999,
                                            f"{name}/{out}")

    def test_int8_model_on_uint8_kernels(self):
        for name in ("convolutions", "matmul"):
            with self.subTest(name):
                path, inputs, outputs, feeds = self.model(name, "int8")
                converted = self.converted(path, inputs, outputs, data_type="uint8",
                                           quantize=QuantizeSettings())
                kernels = [line for line in converted.log if "op(s) quantized" in line]
                self.assertTrue(kernels and not kernels[0].startswith("uint8: 0 "),
                                converted.log)
                expected = litert_run(path, feeds)
                got = mace_run(converted, feeds, outputs)
                scales = output_scales(tflite_model.read(path))
                for out in outputs:
                    quanta = float(np.abs(got[out] - expected[out]).max()) / scales[out]
                    self.assertLessEqual(quanta, MAX_QUANTA, f"{name}/{out}")


if __name__ == "__main__":
    unittest.main()
