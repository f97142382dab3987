"""What `run --validate` prints: every ABI's validation names its reference,
though the reference runs once per model; the threshold of each data type;
and how a failed mace_run is reported."""
import contextlib
import io
import unittest
from types import SimpleNamespace
from unittest import mock

import numpy as np

from mace_converter import cli, run, validate
from mace_converter.api import TensorSpec
from mace_converter.config import ModelConfig


class ValidateOutputTest(unittest.TestCase):
    def test_each_abi_prints_its_reference_line(self):
        model = _model("cpu", "fp32_fp32")
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

    def test_each_device_is_held_to_the_threshold_of_what_it_runs(self):
        reference = np.array([1.0, 0.0], dtype=np.float32)
        # cosine 0.998: good enough for half storage, not for float.
        angle = np.arccos(0.998)
        result = SimpleNamespace(outputs={"prob": np.array([np.cos(angle), np.sin(angle)],
                                                           dtype=np.float32)})
        cases = [("gpu", "fp32_fp32", "gpu", False), ("gpu", "fp16_fp32", "gpu", True),
                 # A cpu+gpu model's data type is its GPU storage; its CPU side
                 # computes float32.
                 ("cpu+gpu", "fp16_fp32", "gpu", True), ("cpu+gpu", "fp16_fp32", "cpu", False)]
        for runtime, data_type, device, passes in cases:
            with self.subTest(runtime=runtime, data_type=data_type, device=device), \
                    mock.patch.object(validate, "reference_outputs",
                                      return_value=("numpy reference", {"prob": reference})), \
                    contextlib.redirect_stdout(io.StringIO()):
                failures = cli._validate(_model(runtime, data_type), None, "host", device, {},
                                         result, {})
                self.assertEqual(failures, [] if passes else [f"net/prob (host, {device})"])


class RunFailureTest(unittest.TestCase):
    NO_LIBRARY = ("I opencl_api.cc:80] searching for OpenCL\n"
                  "mace_run: error: UNSUPPORTED: no OpenCL library could be loaded; tried:\n"
                  "  libOpenCL.so: cannot open shared object file\n"
                  "  /vendor/lib64/libOpenCL.so: cannot open shared object file (--model_file m)")

    def test_a_gpu_without_opencl_is_unavailable_with_every_line_of_the_reason(self):
        error = run.run_failure("net", "arm64-v8a", "gpu", 1, self.NO_LIBRARY)
        self.assertIsInstance(error, run.RuntimeUnavailable)
        self.assertEqual(str(error).splitlines(), [
            "runtime gpu cannot run here: UNSUPPORTED: no OpenCL library could be loaded; "
            "tried:", "  libOpenCL.so: cannot open shared object file",
            "  /vendor/lib64/libOpenCL.so: cannot open shared object file (--model_file m)"])
        platform = run.run_failure("net", "host", "gpu", 1, "mace_run: error: UNSUPPORTED: "
                                   "no OpenCL platform is installed (--model_file m)")
        self.assertIsInstance(platform, run.RuntimeUnavailable)

    def test_other_failures_are_plain_errors(self):
        cases = [("gpu", "mace_run: error: UNSUPPORTED: Conv2D 'c': filter image too wide"),
                 ("gpu", "mace_run: error: INVALID_ARGS: 'w' is float16 but must be float32"),
                 ("cpu", "mace_run: error: UNSUPPORTED: OpenCL"), ("cpu", "")]
        for device, output in cases:
            with self.subTest(output=output):
                error = run.run_failure("net", "host", device, 3, output)
                self.assertNotIsInstance(error, run.RuntimeUnavailable)
                self.assertTrue(str(error).startswith(f"mace_run failed on model net (host, "
                                                      f"{device}):\n"), str(error))
        self.assertTrue(str(run.run_failure("net", "host", "cpu", 3, "")).endswith("exit code 3"))
        dsp = run.run_failure("net", "host", "dsp", 1, "mace_run: error: UNSUPPORTED: HEXAGON")
        self.assertIsInstance(dsp, run.RuntimeUnavailable)


def _model(runtime: str, data_type: str) -> ModelConfig:
    return ModelConfig(name="net", platform="onnx", model_file_path="net.onnx",
                       model_sha256_checksum="ab" * 32, weight_file_path=None,
                       weight_sha256_checksum=None, inputs=[],
                       outputs=[TensorSpec(name="prob", shape=[2])], validation_inputs_data=[],
                       runtime=runtime, data_type=data_type)

if __name__ == "__main__":
    unittest.main()
