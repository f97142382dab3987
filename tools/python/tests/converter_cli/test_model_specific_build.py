"""model_specific_library: 1 end to end on the host: `build` generates the
op registry of the (stand-in) model and builds its mace_run, which gives
the same outputs, bit for bit, as the mace_run with every op (MACE_RUN),
and refuses a model with an op the library left out, naming the op.

Builds the generated package (a registry and links; the ops' objects are
those of the host build) and rewrites mace/codegen/op_registry/, which it
restores afterwards."""
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_converter import conversion, op_registry, package, run
from mace_converter.config import load_config
from mace_tools.builder import NetBuilder
from tests.converter_cli.support import (CHANNELS, SIZE, deployment, quiet, run_cli,
                                         stand_in_frontend, tiny_reference)
from tests.test_mace_run_cli import MACE_RUN


@unittest.skipUnless(MACE_RUN.exists(), f"needs the host mace_run ({MACE_RUN})")
@unittest.skipUnless(shutil.which("bazel"), "needs bazel")
class ModelSpecificBuildTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="model_specific_"))
        cls.saved = cls.tmp / "saved_registry"
        if op_registry.REGISTRY_DIR.exists():
            shutil.copytree(op_registry.REGISTRY_DIR, cls.saved)
        path = deployment(cls.tmp, library="opsonly")
        path.write_text(path.read_text().replace(
            "java: 0\n", "java: 0\nmodel_specific_library: 1\nc_api: 0\n"))
        cls.env = mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(cls.tmp / "build")})
        cls.env.start()
        with stand_in_frontend():
            status, out, err = run_cli("build", "--config", str(path))
        if status != 0:
            raise AssertionError(f"build failed:\n{out}\n{err}")
        cls.build_log = out
        cls.config = load_config(path)

    @classmethod
    def tearDownClass(cls):
        cls.env.stop()
        shutil.rmtree(op_registry.REGISTRY_DIR, ignore_errors=True)
        if cls.saved.exists():
            shutil.copytree(cls.saved, op_registry.REGISTRY_DIR)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_registry_has_the_models_ops_only(self):
        self.assertIn("5 op types: Conv2D, FullyConnected, Pooling, Reshape, Softmax",
                      self.build_log)
        source = (op_registry.REGISTRY_DIR / "registry.cc").read_text()
        self.assertIn("RegisterSoftmax,", source)
        self.assertNotIn("RegisterEltwise", source)

    def test_leaves_the_c_api_out(self):
        self.assertIn("    c_api = False,\n",
                      (op_registry.REGISTRY_DIR / "BUILD.bazel").read_text())
        library = package.library_dir(self.config)
        archive = library / "lib" / "host" / package.static_library_name(self.config)
        symbols = subprocess.run(["nm", "--defined-only", str(archive)], capture_output=True,
                                 text=True, check=True).stdout
        self.assertIn("CreateMaceEngineFromProto", symbols)
        self.assertNotIn("mace_c_engine_create_from_files", symbols)
        self.assertFalse((library / "include" / "mace" / "public" / "mace_c.h").exists())
        self.assertTrue((library / "include" / "mace" / "public" / "mace.h").exists())

    def test_same_outputs_as_every_op(self):
        model = self.config.models["tiny"]
        artifacts = conversion.load_artifacts(self.config, model)
        inputs, _ = run.make_inputs(self.config, model, artifacts)
        options = run.RunOptions()
        with quiet():
            specific = run.run_model(self.config, model, artifacts, "host", "cpu", inputs,
                                     options, echo=False)
            with mock.patch.object(run, "mace_run_path", return_value=MACE_RUN):
                full = run.run_model(self.config, model, artifacts, "host", "cpu", inputs,
                                     options, echo=False)
        np.testing.assert_array_equal(specific.outputs["prob"], full.outputs["prob"])
        image = inputs["image"].transpose(0, 3, 1, 2)
        np.testing.assert_allclose(specific.outputs["prob"], tiny_reference(image),
                                   rtol=1e-4, atol=1e-5)

    def test_refuses_a_model_with_an_op_it_left_out(self):
        net = NetBuilder("other")
        net.add_input("x", [1, CHANNELS, SIZE, SIZE])
        net.add_op("Eltwise", ["x", "x"], "y", name="twice", type=0)
        net.add_output("y", [1, CHANNELS, SIZE, SIZE])
        pb, data = self.tmp / "other.pb", self.tmp / "other.data"
        net.save(pb, data)
        runner = run.mace_run_path(self.config, "host")
        result = subprocess.run([str(runner), f"--model_file={pb}", f"--model_data_file={data}"],
                                capture_output=True, text=True, timeout=120)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("op #0 'twice' needs op type 'Eltwise', which this library leaves out",
                      result.stderr)
        self.assertIn("deployment 'opsonly'", result.stderr)
        # The library with every op runs it.
        full = subprocess.run([str(MACE_RUN), f"--model_file={pb}", f"--model_data_file={data}"],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(full.returncode, 0, full.stderr)

    def test_links_the_default_memory_strategies_only(self):
        model = self.config.models["tiny"]
        artifacts = conversion.load_artifacts(self.config, model)
        runner = run.mace_run_path(self.config, "host")
        files = [f"--model_file={artifacts.pb}", f"--model_data_file={artifacts.data}"]
        for strategy in ("optimal", "greedy_best", "greedy_by_size", "greedy_by_breadth"):
            with self.subTest(strategy=strategy):
                result = subprocess.run([str(runner), *files, f"--memory_strategy={strategy}"],
                                        capture_output=True, text=True, timeout=120)
                self.assertEqual(result.returncode, 0, result.stderr)
        for strategy in ("naive", "equality", "greedy_in_order", "mincostflow"):
            with self.subTest(strategy=strategy):
                result = subprocess.run([str(runner), *files, f"--memory_strategy={strategy}"],
                                        capture_output=True, text=True, timeout=120)
                self.assertNotEqual(result.returncode, 0)
                self.assertIn(f"memory strategy {strategy} is not in this library",
                              result.stderr)
                # The library with every strategy plans with it.
                full = subprocess.run([str(MACE_RUN), *files, f"--memory_strategy={strategy}"],
                                      capture_output=True, text=True, timeout=120)
                self.assertEqual(full.returncode, 0, full.stderr)


if __name__ == "__main__":
    unittest.main()
