"""The Java API on a model zoo network: MobileNet v1 (the zoo's
architecture and seeded weights, at 32x32 input so that a run takes
milliseconds) converted by `converter.py convert`, loaded by
com.mace.MaceEngine on the host JVM and run once per engine, from one thread
and from several; every output must equal mace_run's for the same input
(java/test/com/mace/MaceZooModelTest.java, through java/run_java_tests.sh,
with -Xcheck:jni).

Needs the host mace_run (MACE_RUN), and mace.jar and libmace_jni.so beside
it in the same bazel-bin (`bazel build //java:mace_jar //java:libmace_jni.so`),
and the JDK and junit4 that tools/bootstrap.sh installs.
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from mace_converter import cli
from mace_tools.zoo_deployment import classifier_model, write_deployment, write_zoo_onnx
from tests.test_mace_run_cli import MACE_RUN, REPO

BAZEL_BIN = MACE_RUN.parents[2]
JAR = BAZEL_BIN / "java" / "mace.jar"
JNI_LIBRARY = BAZEL_BIN / "java" / "libmace_jni.so"
JDK = Path("/usr/lib/jvm/java-17-openjdk-amd64/bin")
JUNIT = [Path("/usr/share/java/junit4.jar"), Path("/usr/share/java/hamcrest-core.jar")]
SIZE = 32


class JavaZooModelTest(unittest.TestCase):
    def test_mobilenet_v1_matches_mace_run(self):
        needed = [MACE_RUN, JAR, JNI_LIBRARY, JDK / "javac", JDK / "java", *JUNIT]
        missing = [str(path) for path in needed if not path.exists()]
        self.assertEqual(missing, [], "build //mace/tools:mace_run //java:mace_jar "
                         "//java:libmace_jni.so (and install the JDK and junit4)")
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(Path(tmp) / "build")}):
            directory = Path(tmp)
            model = write_zoo_onnx("mobilenet_v1", SIZE, directory)
            config = write_deployment(
                directory / "java_zoo.yml", "java_zoo",
                {"mobilenet_v1": classifier_model(model, SIZE, data_type="fp32_fp32")})
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(cli.main(["convert", "--config", str(config)]), 0,
                                 out.getvalue())
            converted = directory / "build" / "java_zoo" / "model"
            graph, weights = converted / "mobilenet_v1.pb", converted / "mobilenet_v1.data"
            self.assertTrue(graph.exists() and weights.exists(), sorted(converted.iterdir()))
            result = subprocess.run(
                ["bash", str(REPO / "java" / "run_java_tests.sh"), str(JDK / "javac"),
                 str(JDK / "java"), str(JAR), str(JNI_LIBRARY), str(graph), str(weights),
                 str(MACE_RUN), *map(str, JUNIT)],
                env={**os.environ, "MACE_JAVA_TESTS": "com.mace.MaceZooModelTest",
                     "TEST_TMPDIR": str(directory)},
                capture_output=True, text=True, timeout=600)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("OK (4 tests)", result.stdout)


if __name__ == "__main__":
    unittest.main()
