"""The command line: help for every command, and `convert` (no Bazel)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from mace_converter import build, codegen
from mace_converter.progress import REPO
from tests.converter_cli.support import deployment, run_cli, stand_in_frontend

CONVERTER = REPO / "tools" / "converter.py"


class HelpTest(unittest.TestCase):
    def help_text(self, *command: str) -> str:
        result = subprocess.run([sys.executable, str(CONVERTER), *command, "-h"], text=True,
                                capture_output=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    def test_every_command_has_help(self):
        self.assertRegex(self.help_text(), r"(?s)convert .*build .*run .*benchmark")
        expected = {
            "convert": ["--config", "--model_name"],
            "build": ["--config", "--model_name", "--target_abi"],
            "run": ["--round", "--validate", "--omp_num_threads", "--cpu_affinity_policy",
                    "--gpu_perf_hint", "--gpu_priority_hint", "--target_abi", "--model_name",
                    "--restart_round", "--memory_report", "--validate_layers"],
            "benchmark": ["--round", "--omp_num_threads", "--cpu_affinity_policy",
                          "--gpu_perf_hint", "--gpu_priority_hint", "--target_abi", "--top"],
        }
        for command, flags in expected.items():
            text = self.help_text(command)
            with self.subTest(command=command):
                for flag in flags:
                    self.assertIn(flag, text)
        self.assertNotIn("--validate", self.help_text("benchmark"))

    def test_bad_flag_values_are_refused(self):
        result = subprocess.run([sys.executable, str(CONVERTER), "run", "--round", "0"],
                                text=True, capture_output=True, timeout=120)
        self.assertEqual(result.returncode, 2)
        self.assertIn("argument --round: 0 is not in [1, 1000000]", result.stderr)


class ToolchainTest(unittest.TestCase):
    def test_missing_cross_compiler_is_one_message_before_any_work(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = deployment(Path(tmp))
            path.write_text(path.read_text().replace("[host]", "[host, armeabi-v7a]"))
            with mock.patch.object(build.shutil, "which", return_value=None), \
                    stand_in_frontend() as frontend:
                status, out, err = run_cli("build", "--config", str(path))
        self.assertEqual(status, 1)
        self.assertEqual(err, "error: target ABI armeabi-v7a needs the cross compiler "
                              "arm-linux-gnueabihf-g++, which is not installed; install "
                              "g++-arm-linux-gnueabihf and qemu-user\n")
        self.assertEqual(frontend.calls, [])


class ConvertCommandTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.build = self.tmp / "build"
        self.env = mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(self.build)})
        self.env.start()

    def tearDown(self):
        self.env.stop()
        self._tmp.cleanup()

    def test_proto_mode_writes_model_files_and_metadata(self):
        config = deployment(self.tmp)
        with stand_in_frontend() as frontend:
            status, out, err = run_cli("convert", "--config", str(config))
        self.assertEqual(status, 0, out + err)
        options = frontend.calls[0]
        self.assertEqual((options.platform, options.runtime, options.data_type),
                         ("tensorflow", "cpu", "fp32_fp32"))
        self.assertEqual(options.inputs[0].shape, [1, 8, 8, 3])
        self.assertEqual(options.inputs[0].data_format, "NHWC")
        self.assertEqual(options.inputs[0].value_range, (0.0, 1.0))
        self.assertEqual(sorted(p.name for p in (self.build / "clitest" / "model").iterdir()),
                         ["tiny.data", "tiny.pb"])
        meta = json.loads((self.build / ".work" / "clitest" / "models" / "tiny.json").read_text())
        self.assertEqual(meta["engine_inputs"][0]["shape"], [1, 3, 8, 8])
        self.assertEqual(meta["source_inputs"][0]["data_format"], "NHWC")
        self.assertRegex(out, r"==> convert tiny \(tensorflow -> MACE, runtime cpu, fp32_fp32\)")
        self.assertIn("stand-in: tiny test network", out)
        self.assertRegex(out, r"convert: done in [\d.]+ s")

    def test_code_mode_generates_sources_with_headers(self):
        config = deployment(self.tmp, build_type="code", embed=0)
        generated = self.tmp / "generated"
        header = generated / "include" / "mace" / "public" / "mace_engine_factory.h"
        stale = generated / "models" / "old" / "old_graph.cc"
        stale.parent.mkdir(parents=True)
        stale.write_text("// from an earlier build\n")
        with stand_in_frontend(), mock.patch.object(codegen, "GENERATED_DIR", generated), \
                mock.patch.object(codegen, "FACTORY_HEADER", header):
            status, out, err = run_cli("convert", "--config", str(config))
        self.assertEqual(status, 0, out + err)
        files = sorted(str(p.relative_to(generated)) for p in generated.rglob("*") if p.is_file())
        self.assertEqual(files, ["engine/mace_engine_factory.cc",
                                 "include/mace/public/mace_engine_factory.h",
                                 "models/tiny/tiny_graph.cc"])
        for path in generated.rglob("*.*"):
            self.assertRegex(path.read_text().splitlines()[0],
                             r"^// Generated by tools/python/mace_converter/codegen\.py from "
                             r"templates/[a-z_.]+\.jinja2\.$")
        self.assertIn("tiny: weights from its .data file", header.read_text())
        # Code mode ships only the weights file when weights are not embedded.
        self.assertEqual([p.name for p in (self.build / "clitest" / "model").iterdir()],
                         ["tiny.data"])


if __name__ == "__main__":
    unittest.main()
