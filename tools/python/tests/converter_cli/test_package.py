"""build -> the library package: layout, tarball, an app built against the
tarball with g++, and run/benchmark on the built model. Shares one build."""
import contextlib
import io
import re
import subprocess
import tarfile
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_converter import build, package, validate
from mace_converter.config import load_config
from tests.converter_cli import apps
from tests.converter_cli.support import SharedBuild, deployment, run_cli, tiny_reference


PLANNER_HEADERS = [f"include/mace/core/memory/{name}.h" for name in
                   ("plan_checks", "planner", "simple_arena", "status", "usage_record")]


# A Java app on the package's java/ directory: mace.jar on the class path and
# java/jniLibs/host on java.library.path, as System.loadLibrary finds it.
JAVA_APP = """
import com.mace.MaceEngine;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;

public class App {
  public static void main(String[] args) throws Exception {
    try (MaceEngine engine = MaceEngine.create(args[0], args[1], new MaceEngine.Config())) {
      String input = engine.getInputNames().get(0);
      ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(Paths.get(args[2])))
          .order(ByteOrder.LITTLE_ENDIAN);
      engine.setInput(input, raw.asFloatBuffer(), engine.getInputShape(input));
      engine.run();
      for (float value : engine.getOutputFloats(engine.getOutputNames().get(0))) {
        System.out.println(value);
      }
    }
  }
}
"""


def run_java_app(root: Path, model: list[str]) -> np.ndarray:
    (root / "App.java").write_text(JAVA_APP)
    classpath = f"{root / 'java/mace.jar'}:{root}"
    subprocess.run(["javac", "-cp", classpath, "-d", str(root), str(root / "App.java")],
                   check=True, capture_output=True)
    result = subprocess.run(["java", f"-Djava.library.path={root / 'java/jniLibs/host'}",
                             "-cp", classpath, "App", *model],
                            check=True, capture_output=True, text=True)
    return np.array(result.stdout.split(), np.float32)


class JavaKeyTest(unittest.TestCase):
    """`java: 1` alone brings the Java API into the build and the package."""

    def bazel_targets(self, java: int) -> list[str]:
        with tempfile.TemporaryDirectory() as tmp:
            config = load_config(deployment(Path(tmp), java=java))
        ran = []

        def output_files(flags, targets):
            return {target: Path(f"/bazel-out/{target}") for target in targets}

        def run_command(command, **kwargs):
            ran.append(command)
            return mock.Mock(stdout="")

        with mock.patch.object(build, "run_command", run_command), \
                mock.patch.object(build, "output_files", output_files), \
                mock.patch.object(Path, "read_text", return_value="-pthread"), \
                contextlib.redirect_stdout(io.StringIO()):
            outputs = build.bazel_build(config, "host")
        self.assertEqual(outputs.jni_library is not None, bool(java))
        self.assertEqual(outputs.java_jar is not None, bool(java))
        return ran[0]

    def test_java_targets_only_when_asked(self):
        self.assertNotIn(build.JNI_LIBRARY, self.bazel_targets(java=0))
        self.assertNotIn(build.JAVA_JAR, self.bazel_targets(java=0))
        self.assertIn(build.JNI_LIBRARY, self.bazel_targets(java=1))
        self.assertIn(build.JAVA_JAR, self.bazel_targets(java=1))

    def test_java_left_by_an_earlier_build_is_removed(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict("os.environ", {"MACE_BUILD_DIR": str(Path(tmp) / "build")}):
            config = load_config(deployment(Path(tmp)))
            stale = package.library_dir(config) / "java" / "jniLibs" / "host"
            stale.mkdir(parents=True)
            (stale / "libmace_jni.so").write_bytes(b"old")
            outputs = build.AbiOutputs(abi="host", static_library=Path(tmp),
                                       link_flags="", mace_run=Path(tmp))
            package.install_java(config, outputs)
            self.assertFalse((package.library_dir(config) / "java").exists())


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
            "include/mace/public/mace_c.h",
            "java/jniLibs/host/libmace_jni.so",
            "java/mace.jar",
            "lib/host/libmace.so",
            "lib/host/libmace_clitest.a",
            "lib/host/link_flags.txt",
            "libmace_clitest.tar.gz",
            "mace_run/host/mace_run",
            "model/tiny.data",
            "model/tiny.pb",
        ])
        # protobuf-lite and the C++ runtime are inside the libraries.
        self.assertNotIn("protobuf", (self.library / "lib/host/link_flags.txt").read_text())
        for library in ("lib/host/libmace.so", "java/jniLibs/host/libmace_jni.so"):
            dynamic = subprocess.run(["readelf", "-dW", str(self.library / library)],
                                     capture_output=True, text=True, check=True).stdout
            needed = sorted(re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic))
            self.assertEqual(needed, ["ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6"],
                             library)
        self.assertRegex(self.shared.stdout, r"==> bazel build libmace \+ libmace\.so \+ "
                                             r"the Java API \+ mace_run for host\n")
        self.assertRegex(self.shared.stdout, r"build: done in [\d.]+ s")

    def test_tarball_layout_and_app_built_against_it(self):
        with tarfile.open(self.library / "libmace_clitest.tar.gz") as tar:
            members = {m.name: m for m in tar.getmembers()}
            self.assertEqual(sorted(n for n, m in members.items() if m.isfile()), [
                *PLANNER_HEADERS, "include/mace/public/mace.h", "include/mace/public/mace_c.h",
                "java/jniLibs/host/libmace_jni.so", "java/mace.jar", "lib/host/libmace.so",
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
                got = run_java_app(root, model)
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)

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
        # The engine adds a layout converter where the host's kernels use
        # channel blocks (it depends on the CPU's vector width).
        model_rows = [row for row in rows if row != "BlockedLayoutConvert"]
        self.assertEqual(sorted(model_rows), ["Conv2D", "FullyConnected", "Pooling", "Reshape",
                                              "Softmax"])
        self.assertRegex(out, r"\nConv2D\s+1\s+[\d.]+\s+[\d.]+%\s+\d+")
        self.assertRegex(out, rf"all ops\s+{len(rows)}\s+")

    def test_memory_report_writes_and_draws_the_plan(self):
        with self.shared.environment():
            status, out, err = run_cli("run", "--config", str(self.shared.config),
                                       "--round", "1", "--memory_report")
        self.assertEqual(status, 0, out + err)
        match = re.search(r"memory plan: (\S+\.csv), (\S+\.json), picture (\S+\.svg)", out)
        self.assertIsNotNone(match, out)
        self.assertTrue(match.group(1).endswith("memory_plan.csv"))
        run_dir = next(self.shared.build_dir.rglob("memory_plan.svg")).parent
        records = (run_dir / "memory_plan.csv").read_text().splitlines()
        self.assertEqual(records[0], "name,size,first,last")
        self.assertGreater(len(records), 1)
        svg = (run_dir / "memory_plan.svg").read_text()
        self.assertEqual(svg.count("<title>tensor "), len(records) - 1)
        self.assertIn("lower bound", svg)

    def gpu_config(self, directory: str, runtime: str, extra: str = "") -> str:
        path = Path(directory) / f"{runtime.replace('+', '_')}.yml"
        path.write_text(self.shared.config.read_text().replace(
            "    runtime: cpu\n", f"    runtime: {runtime}\n{extra}"))
        return str(path)

    def run_validated(self, config: str, *flags: str) -> tuple[int, str, str]:
        def numpy_reference(model, artifacts, inputs):
            nhwc = inputs["image"]
            return "numpy test reference", {"prob": tiny_reference(nhwc.transpose(0, 3, 1, 2))}

        with self.shared.environment(), \
                mock.patch.object(validate, "_tensorflow", side_effect=numpy_reference):
            return run_cli("run", "--config", config, "--validate", *flags)

    def test_gpu_run_validates_in_both_storages(self):
        # On the OpenCL device of the machine: PoCL's CPU device here and in CI.
        with tempfile.TemporaryDirectory() as tmp:
            for data_type, threshold in (("fp32_fp32", r"0\.999"), ("fp16_fp32", r"0\.995")):
                with self.subTest(data_type=data_type):
                    config = self.gpu_config(tmp, "gpu", f"    data_type: {data_type}\n")
                    status, out, err = self.run_validated(config, "--round", "2")
                    self.assertEqual(status, 0, out + err)
                    self.assertIn("==> run tiny on gpu (host)", out)
                    self.assertIn(" --device=GPU --round=2 ", out)
                    self.assertIn(f" --gpu_data_type={data_type} --opencl_device_fallback "
                                  "--opencl_cache_file=", out)
                    self.assertNotIn("--limit_opencl_kernel_time", out)
                    self.assertRegex(out, r"prob: cosine (0\.99\d+|1\.0+) \(>= " + threshold +
                                     r"\), SQNR [\d.]+ dB, max abs error [\d.e-]+  PASS")

    def test_cpu_gpu_model_runs_on_both_devices(self):
        with tempfile.TemporaryDirectory() as tmp:
            config = self.gpu_config(tmp, "cpu+gpu", "    limit_opencl_kernel_time: 1\n")
            status, out, err = self.run_validated(config)
        self.assertEqual(status, 0, out + err)
        self.assertIn("==> run tiny on cpu (host)", out)
        self.assertIn("==> run tiny on gpu (host)", out)
        self.assertIn(" --gpu_data_type=fp16_fp32 ", out)
        self.assertIn(" --limit_opencl_kernel_time", out)
        # fp16_fp32 is the GPU's storage; the CPU side computes float32.
        self.assertEqual(re.findall(r"prob: cosine [\d.]+ \(>= ([\d.]+)\).*  PASS", out),
                         ["0.999", "0.995"], out)

    def test_gpu_without_opencl_is_one_clear_error(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict("os.environ", {"OCL_ICD_VENDORS": tmp + "/no-vendors"}):
            status, out, err = self.run_validated(self.gpu_config(tmp, "gpu"))
            self.assertEqual(status, 1)
            self.assertRegex(err, r"^error: runtime gpu cannot run here: .*OpenCL")
            self.assertNotIn("Traceback", err)
            # A cpu+gpu model still runs on the CPU and says why the GPU was skipped.
            status, out, err = self.run_validated(self.gpu_config(tmp, "cpu+gpu"))
        self.assertEqual(status, 0, out + err)
        self.assertRegex(out, r"note: runtime gpu cannot run here: .*; skipped")
        self.assertEqual(len(re.findall(r"prob: cosine .*  PASS", out)), 1, out)

if __name__ == "__main__":
    unittest.main()
