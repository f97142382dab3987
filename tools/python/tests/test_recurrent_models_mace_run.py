"""The real recurrent models of converter_front/test_recurrent_models.py,
converted and run by the C++ engine through mace_run, match ONNX Runtime.

Needs the host mace_run binary (MACE_RUN, as tools/test.sh sets it) and the
packages of tools/requirements-models.txt.
"""
import tempfile
import unittest
from pathlib import Path

from tests.converter_front import test_recurrent_models as recurrent
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN


class RecurrentModelsOnEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")

    def _check(self, case: recurrent.RecurrentModel) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path, model = recurrent.load(self, case, Path(tmp))
            feeds, expected = recurrent.reference(case, model)
            converted = recurrent.convert_case(case, path)
            got = run_converted(self, converted, feeds)
        recurrent.assert_matches(self, case, f"{case.path} (mace_run)", expected, got)

    def test_pytorch_ocr_recognizer_bidirectional_lstm(self):
        self._check(recurrent.DDDDOCR_REC)

    def test_spox_silero_vad_16k_if_on_sample_rate(self):
        self._check(recurrent.SILERO_VAD_16K)

    def test_spox_silero_vad_8k_if_on_sample_rate(self):
        self._check(recurrent.SILERO_VAD_8K)

    def test_pytorch_silero_vad_sequence(self):
        self._check(recurrent.SILERO_VAD_SEQUENCE)


if __name__ == "__main__":
    unittest.main()
