"""`android_aar: 1`: the Java API packed as an Android Archive. The
archive holds classes.jar (mace.jar as built), AndroidManifest.xml and
jni/<android abi>/libmace_jni.so, byte for byte the libraries build
installs, and packing twice gives the same bytes. The key needs `java: 1`.

Needs the host Java API (`bazel build //java:mace_jar //java:libmace_jni.so`).
"""
import copy
import os
import subprocess
import tempfile
import unittest
import zipfile
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import yaml

from mace_converter import aar, package
from mace_converter.config import ConfigError, load_config
from tests.converter_cli.support import quiet
from tests.converter_cli.test_config import BASE

REPO = Path(__file__).resolve().parents[4]
BAZEL_BIN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" /
                                "mace_run")).parents[2]
JAR = BAZEL_BIN / "java" / "mace.jar"
JNI_LIBRARY = BAZEL_BIN / "java" / "libmace_jni.so"


class AndroidArchiveTest(unittest.TestCase):
    def setUp(self):
        missing = [str(path) for path in (JAR, JNI_LIBRARY) if not path.exists()]
        self.assertEqual(missing, [], "build //java:mace_jar //java:libmace_jni.so first")
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)
        patch = mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(self.dir / "build")})
        patch.start()
        self.addCleanup(patch.stop)

    def config(self, **keys):
        document = copy.deepcopy(BASE)
        document.update(keys)
        path = self.dir / "deploy.yml"
        path.write_text(yaml.safe_dump(document, sort_keys=False))
        return load_config(path)

    def pack(self, config):
        for abi in config.target_abis:
            outputs = SimpleNamespace(abi=abi, jni_library=JNI_LIBRARY, java_jar=JAR)
            package.install_java(config, outputs)
        with quiet():
            package.pack_aar(config)
        return aar.aar_path(package.library_dir(config) / "java", config)

    def test_layout(self):
        config = self.config(java=1, android_aar=1, target_abis=["host", "arm64-v8a"])
        with mock.patch.object(aar.platform, "machine", return_value="x86_64"):
            archive_path = self.pack(config)
        with zipfile.ZipFile(archive_path) as archive:
            self.assertEqual(sorted(archive.namelist()), [
                "AndroidManifest.xml", "classes.jar", "jni/arm64-v8a/libmace_jni.so",
                "jni/x86_64/libmace_jni.so"])
            self.assertEqual(archive.read("classes.jar"), JAR.read_bytes())
            self.assertEqual(archive.read("jni/x86_64/libmace_jni.so"), JNI_LIBRARY.read_bytes())
            manifest = archive.read("AndroidManifest.xml").decode()
            self.assertIn('package="com.mace"', manifest)
            classes = self.dir / "classes.jar"
            classes.write_bytes(archive.read("classes.jar"))
        with zipfile.ZipFile(classes) as jar:
            self.assertIn("com/mace/MaceEngine.class", jar.namelist())
        first = archive_path.read_bytes()
        self.pack(config)
        self.assertEqual(archive_path.read_bytes(), first)
        # The tarball carries the archive.
        with quiet():
            tarball = package.make_tarball(config)
        listing = subprocess.run(["tar", "tzf", str(tarball)], capture_output=True, text=True,
                                 check=True).stdout.split()
        self.assertIn("java/libmace_demo.aar", listing)

    def test_host_without_android_name_is_left_out(self):
        config = self.config(java=1, android_aar=1, target_abis=["host"])
        with mock.patch.object(aar.platform, "machine", return_value="riscv64"):
            archive_path = self.pack(config)
        with zipfile.ZipFile(archive_path) as archive:
            self.assertEqual(sorted(archive.namelist()), ["AndroidManifest.xml", "classes.jar"])

    def test_no_archive_unless_asked(self):
        config = self.config(java=1)
        self.assertFalse(self.pack(config).exists())

    def test_needs_java(self):
        with self.assertRaises(ConfigError) as caught:
            self.config(android_aar=1)
        self.assertIn("android_aar: needs java: 1", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
