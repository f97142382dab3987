"""converter.py build with target_socs: the GPU model is run with tuning on
this machine's OpenCL device (PoCL's CPU device in CI), and the program
binary and tuned parameters are packed under opencl/<abi>/; `run` hands
them to mace_run, which then loads the program without compiling.

Needs the host mace_run binary (MACE_RUN, default bazel-bin/mace/tools/mace_run)
and an OpenCL device.
"""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import numpy as np

from mace_converter import benchmark, package
from mace_tools import builder
from tests.converter_cli.support import quiet

REPO = Path(__file__).resolve().parents[3]
MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))


def tiny_model(directory: Path) -> SimpleNamespace:
    """A 3x3 conv, 3 -> 4 channels on a 6x6 image, and its files."""
    rng = np.random.default_rng(5)
    net = builder.NetBuilder("tiny")
    net.add_input("x", [1, 3, 6, 6])
    weight = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    net.add_op("Conv2D", ["x", net.add_weight("w", weight)], "y", name="conv", padding=1)
    net.add_output("y", [1, 4, 6, 6])
    pb, data = directory / "tiny.pb", directory / "tiny.data"
    net.save(pb, data)
    return SimpleNamespace(pb=pb, data=data)


class OpenCLPackageTest(unittest.TestCase):
    def setUp(self):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.artifacts = tiny_model(self.dir)
        patches = [mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(self.dir / "build")}),
                   mock.patch.object(package, "load_artifacts", return_value=self.artifacts)]
        for patch in patches:
            patch.start()
            self.addCleanup(patch.stop)

    def tearDown(self):
        self.tmp.cleanup()

    def config(self, socs):
        model = SimpleNamespace(name="tiny", runtime="gpu", data_type="fp32_fp32")
        return SimpleNamespace(library_name="gputest", target_socs=socs, models={"tiny": model})

    def run_gpu(self, *flags):
        result = subprocess.run(
            [str(MACE_RUN), f"--model_file={self.artifacts.pb}",
             f"--model_data_file={self.artifacts.data}", "--device=GPU",
             "--opencl_device_fallback", "--gpu_data_type=fp32_fp32",
             f"--output_file={self.dir / 'out'}", *flags],
            text=True, capture_output=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stderr, np.load(self.dir / "out_y.npy")

    def test_all_socs_packs_the_binary_and_tuned_parameters(self):
        config = self.config(["all"])
        with quiet():
            package.tune_opencl(config, "host", MACE_RUN)
        files = sorted((self.dir / "build" / "gputest" / "opencl" / "host").iterdir())
        self.assertEqual(len(files), 2, files)
        binary, parameters = (next(f for f in files if kind in f.name) for kind in
                              ("_compiled_opencl_kernel.host.", "_tuned_opencl_parameter.host."))
        self.assertEqual(binary.read_bytes()[:8], b"MACECLPC")
        self.assertEqual(parameters.read_bytes()[:8], b"MACECLTP")
        self.assertEqual(binary.name.split(".host.")[1], parameters.name.split(".host.")[1])

        flags = package.opencl_run_flags(config, "host")
        self.assertEqual(flags, [f"--opencl_binary_file={binary}",
                                 f"--opencl_parameter_file={parameters}"])
        packed_log, packed = self.run_gpu(*flags)
        self.assertIn("loaded from binary file", packed_log)
        self.assertNotIn("ignored", packed_log)
        _, plain = self.run_gpu()
        np.testing.assert_array_equal(packed, plain)

    def test_other_socs_pack_nothing(self):
        config = self.config(["Adreno (TM) 640"])
        with quiet():
            package.tune_opencl(config, "host", MACE_RUN)
        self.assertFalse((self.dir / "build" / "gputest" / "opencl").exists())
        self.assertEqual(package.opencl_run_flags(config, "host"), [])

    def test_soc_names(self):
        self.assertEqual(package.soc_name("Adreno (TM) 640"), "Adreno_TM_640")
        self.assertEqual(package.soc_name("pthread-skylake-avx512-AMD EPYC"),
                         "pthread-skylake-avx512-AMD_EPYC")


class DeviceTimeTableTest(unittest.TestCase):
    def test_device_column_is_parsed_and_shown(self):
        table = "\n".join([
            "   #  type      name    median ms   share         MACs  device ms  output shape",
            "   0  Conv2D    conv 1     0.5000  50.00%         1000     0.2500  [1,4,6,6]",
            "   1  Transpose t          0.5000  50.00%            0          -  [1,6,4,6]",
            "sum of op medians: 1.000 ms"])
        ops = benchmark.parse_op_table(table)
        self.assertEqual([(op.name, op.ms, op.device_ms, op.output_shape) for op in ops],
                         [("conv 1", 0.5, 0.25, "[1,4,6,6]"), ("t", 0.5, None, "[1,6,4,6]")])
        shown = benchmark.format_tables(ops).splitlines()
        self.assertIn("device ms", shown[0])
        self.assertRegex(shown[1], r"0\.2500  \[1,4,6,6\]$")
        self.assertRegex(shown[2], r" -  \[1,6,4,6\]$")


if __name__ == "__main__":
    unittest.main()
