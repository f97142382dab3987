"""build -> the library package: layout, tarball, an app built against the
tarball with g++, and run/benchmark on the built model. Shares one build."""
import re
import tarfile
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_converter import validate
from tests.converter_cli import apps
from tests.converter_cli.support import SharedBuild, run_cli, tiny_reference


PLANNER_HEADERS = [f"include/mace/core/memory/{name}.h" for name in
                   ("plan_checks", "planner", "simple_arena", "status", "usage_record")]


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.shared = SharedBuild.get()
        cls.library = cls.shared.library

    def test_layout(self):
        files = sorted(str(p.relative_to(self.library)) for p in self.library.rglob("*")
                       if p.is_file())
        self.assertEqual(files, [
            *PLANNER_HEADERS,
            "include/mace/public/mace.h",
            "lib/host/libmace.so",
            "lib/host/libmace_clitest.a",
            "lib/host/link_flags.txt",
            "libmace_clitest.tar.gz",
            "mace_run/host/mace_run",
            "model/tiny.data",
            "model/tiny.pb",
        ])
        self.assertIn("-l:libprotobuf-lite.so.32", (self.library / "lib/host/link_flags.txt")
                      .read_text())
        self.assertRegex(self.shared.stdout, r"==> bazel build libmace \+ libmace\.so \+ "
                                             r"mace_run for host\n")
        self.assertRegex(self.shared.stdout, r"build: done in [\d.]+ s")

    def test_tarball_layout_and_app_built_against_it(self):
        with tarfile.open(self.library / "libmace_clitest.tar.gz") as tar:
            members = {m.name: m for m in tar.getmembers()}
            self.assertEqual(sorted(n for n, m in members.items() if m.isfile()), [
                *PLANNER_HEADERS, "include/mace/public/mace.h", "lib/host/libmace.so",
                "lib/host/libmace_clitest.a", "lib/host/link_flags.txt",
                "model/tiny.data", "model/tiny.pb"])
            self.assertTrue(all(m.mtime == 0 and m.uid == 0 for m in members.values()))
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                tar.extractall(root)
                flags = (root / "lib/host/link_flags.txt").read_text().split()
                image = np.random.default_rng(3).uniform(0, 1, (1, 3, 8, 8)).astype(np.float32)
                image.tofile(root / "input.raw")
                expected = tiny_reference(image).reshape(-1)
                model = [str(root / "model/tiny.pb"), str(root / "model/tiny.data"),
                         str(root / "input.raw")]
                static_app = apps.compile_app(
                    apps.PROTO_APP, root / "static_app", [root / "include"], [],
                    [str(root / "lib/host/libmace_clitest.a"), *flags])
                got, _ = apps.run_app([str(static_app), *model])
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
                shared_app = apps.compile_app(
                    apps.PROTO_APP, root / "shared_app", [root / "include"], [],
                    [f"-L{root / 'lib/host'}", "-lmace", f"-Wl,-rpath,{root / 'lib/host'}",
                     *flags])
                got, _ = apps.run_app([str(shared_app), *model])
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
                planner_app = apps.compile_app(
                    apps.PLANNER_APP, root / "planner_app", [root / "include"], [],
                    [str(root / "lib/host/libmace_clitest.a"), *flags])
                got, _ = apps.run_app([str(planner_app)])
                self.assertEqual(got[-2:].tolist(), [3072, 3072])

    def test_run_validate_and_benchmark(self):
        def numpy_reference(model, artifacts, inputs):
            nhwc = inputs["image"]
            return "numpy test reference", {"prob": tiny_reference(nhwc.transpose(0, 3, 1, 2))}

        config = str(self.shared.config)
        with self.shared.environment(), \
                mock.patch.object(validate, "_tensorflow", side_effect=numpy_reference):
            status, out, err = run_cli("run", "--config", config, "--round", "3", "--validate")
        self.assertEqual(status, 0, out + err)
        self.assertIn("inputs uniform random, seed 20240611: image in [0, 1)", out)
        self.assertIn("device: host (", out)
        self.assertRegex(out, r"output prob \[1, 10\]: top-5 (\d+ \([\d.e-]+\), ){4}\d+")
        self.assertRegex(out, r"latency: init [\d.]+ ms, first run [\d.]+ ms, median [\d.]+ ms "
                              r"over 3 run\(s\)")
        self.assertIn("reference: numpy test reference", out)
        self.assertRegex(out, r"prob: cosine 1\.0+ \(>= 0\.999\), SQNR [\d.]+ dB, max abs error "
                              r"[\d.e-]+  PASS")

        with self.shared.environment():
            status, out, err = run_cli("benchmark", "--config", config, "--round", "2")
        self.assertEqual(status, 0, out + err)
        rows = re.findall(r"^\s+\d+\s+(\w+)\s+\S+\s+[\d.]+\s+[\d.]+%", out, re.M)
        self.assertEqual(sorted(rows), ["Conv2D", "FullyConnected", "Pooling", "Reshape",
                                        "Softmax"])
        self.assertRegex(out, r"\nConv2D\s+1\s+[\d.]+\s+[\d.]+%\s+\d+")
        self.assertRegex(out, r"all ops\s+5\s+")

    def test_gpu_runtime_is_reported_as_unavailable(self):
        config = self.shared.config.read_text().replace("runtime: cpu", "runtime: gpu")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "gpu.yml"
            path.write_text(config)
            with self.shared.environment():
                status, out, err = run_cli("run", "--config", str(path))
        self.assertEqual(status, 1)
        self.assertRegex(err, r"^error: runtime gpu is not available in this build: ")
        self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()
