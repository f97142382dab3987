"""A model the converter writes carries the CRC-32C of its weights, and the
C++ engine (through mace_run) computes the same value: the model runs. A
flipped byte or a truncated .data is refused with one clear message, unless
the check is turned off.

Needs the host mace_run binary; tools/test.sh builds it first and passes its
path in MACE_RUN (default: bazel-bin/mace/tools/mace_run).
"""
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np

from tests.converter_front.helpers import convert_model, ort_run, random_feeds
from tests.converter_front.test_serialize import INPUTS, _model
from tests.test_mace_run_cli import MACE_RUN

MISMATCH = "the weights data does not match the model (CRC32C expected "


class WeightsChecksumTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        model = _model()
        model.graph.output.pop()  # only the float logits
        cls.converted = convert_model(model, INPUTS, ["logits"])
        cls.pb = cls.dir / "model.pb"
        cls.pb.write_bytes(cls.converted.net_def.SerializeToString())
        cls.data = cls.dir / "model.data"
        cls.data.write_bytes(cls.converted.weights)
        cls.feeds = random_feeds(INPUTS)
        np.save(cls.dir / "in_x.npy", cls.feeds["x"])
        cls.expected = ort_run(model, cls.feeds)[0]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_mace(self, data: Path, *flags: str) -> subprocess.CompletedProcess:
        command = [str(MACE_RUN), f"--model_file={self.pb}", f"--model_data_file={data}",
                   f"--input_file={self.dir / 'in'}", f"--output_file={self.dir / 'out'}",
                   *flags]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    def write_data(self, name: str, weights: bytes) -> Path:
        path = self.dir / name
        path.write_bytes(weights)
        return path

    def test_engine_agrees_with_the_converter(self):
        self.assertNotEqual(self.converted.net_def.weights_crc32c, 0)
        result = self.run_mace(self.data)
        self.assertEqual(result.returncode, 0, result.stderr)
        np.testing.assert_allclose(np.load(self.dir / "out_logits.npy"), self.expected,
                                   rtol=1e-4, atol=1e-5)

    def test_a_flipped_byte_is_refused(self):
        corrupt = bytearray(self.converted.weights)
        corrupt[len(corrupt) // 2] ^= 0x01
        result = self.run_mace(self.write_data("flipped.data", bytes(corrupt)))
        self.assertEqual(result.returncode, 1, result.stderr)
        crc = self.converted.net_def.weights_crc32c
        self.assertIn(f"INVALID_ARGS: {MISMATCH}0x{crc:08X}, got 0x", result.stderr)
        self.assertIn("a truncated or corrupt .data file?", result.stderr)

    def test_a_truncated_file_is_refused(self):
        result = self.run_mace(self.write_data("short.data", self.converted.weights[:-100]))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(MISMATCH, result.stderr)

    def test_verification_can_be_turned_off(self):
        corrupt = bytearray(self.converted.weights)
        corrupt[0] ^= 0x01  # the low mantissa bit of the first weight
        result = self.run_mace(self.write_data("unchecked.data", bytes(corrupt)),
                               "--verify_weights=false")
        self.assertEqual(result.returncode, 0, result.stderr)
        np.testing.assert_allclose(np.load(self.dir / "out_logits.npy"), self.expected,
                                   rtol=1e-3, atol=1e-3)


if __name__ == "__main__":
    unittest.main()
