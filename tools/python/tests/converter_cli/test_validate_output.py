"""What `run --validate` prints: every ABI's validation names its reference,
though the reference runs once per model."""
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


if __name__ == "__main__":
    unittest.main()
