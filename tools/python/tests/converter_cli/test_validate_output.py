"""What `run --validate` prints: every ABI's validation names its reference,
though the reference runs once per model; and the threshold of each data
type."""
import contextlib
import io
import unittest
from types import SimpleNamespace
from unittest import mock

import numpy as np

from mace_converter import cli, validate


class ValidateOutputTest(unittest.TestCase):
    def test_each_abi_prints_its_reference_line(self):
        model = SimpleNamespace(name="net", data_type="fp32_fp32",
                                outputs=[SimpleNamespace(name="prob")])
        output = {"prob": np.array([0.25, 0.75], dtype=np.float32)}
        result = SimpleNamespace(outputs=output)
        references: dict = {}
        printed = io.StringIO()
        with mock.patch.object(validate, "reference_outputs",
                               return_value=("numpy test reference", output)) as reference, \
                contextlib.redirect_stdout(printed):
            for abi in ("host", "arm64-v8a"):
                failures = cli._validate(model, None, abi, "cpu", {}, result, references)
                self.assertEqual(failures, [])
        reference.assert_called_once()
        self.assertEqual(printed.getvalue().count("reference: numpy test reference"), 2)

    def test_thresholds_follow_the_data_type(self):
        cases = [("cpu", "fp32_fp32", 0.999), ("gpu", "fp32_fp32", 0.999),
                 ("gpu", "fp16_fp32", 0.995), ("cpu", "fp16_fp32", 0.995),
                 ("cpu", "uint8", 0.98), ("dsp", "uint8", 0.98)]
        for device, data_type, expected in cases:
            with self.subTest(device=device, data_type=data_type):
                self.assertEqual(validate.cosine_threshold(device, data_type), expected)

    def test_gpu_storage_is_held_to_its_threshold(self):
        model = SimpleNamespace(name="net", data_type="fp32_fp32",
                                outputs=[SimpleNamespace(name="prob")])
        reference = np.array([1.0, 0.0], dtype=np.float32)
        # cosine 0.998: good enough for half storage, not for float storage.
        angle = np.arccos(0.998)
        result = SimpleNamespace(outputs={"prob": np.array([np.cos(angle), np.sin(angle)],
                                                           dtype=np.float32)})
        with mock.patch.object(validate, "reference_outputs",
                               return_value=("numpy test reference", {"prob": reference})), \
                contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(cli._validate(model, None, "host", "gpu", {}, result, {}),
                             ["net/prob (host, gpu)"])
            model.data_type = "fp16_fp32"
            self.assertEqual(cli._validate(model, None, "host", "gpu", {}, result, {}), [])


if __name__ == "__main__":
    unittest.main()
