"""Model files: checksums, missing files, URL downloads and the model zoo."""
import hashlib
import os
import socket
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from mace_converter import fetch
from mace_converter.config import ConfigError, load_config
from mace_converter.progress import UserError
from tests.converter_cli.support import deployment, quiet


class FetchTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.env = mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(self.tmp / "build")})
        self.env.start()
        self.quiet = quiet()
        self.quiet.__enter__()

    def tearDown(self):
        self.quiet.__exit__(None, None, None)
        self.env.stop()
        self._tmp.cleanup()

    def config(self, **kwargs):
        return load_config(deployment(self.tmp, **kwargs))

    def test_matching_checksum(self):
        config = self.config()
        model_file, weight_file = fetch.model_files(config, config.models["tiny"])
        self.assertEqual(model_file, self.tmp / "tiny.pb")
        self.assertIsNone(weight_file)

    def test_checksum_mismatch_names_file_key_and_both_sums(self):
        config = self.config()
        (self.tmp / "tiny.pb").write_bytes(b"changed\n")
        with self.assertRaises(ConfigError) as caught:
            fetch.model_files(config, config.models["tiny"])
        actual = hashlib.sha256(b"changed\n").hexdigest()
        expected = config.models["tiny"].model_sha256_checksum
        self.assertEqual(str(caught.exception),
                         f"{config.path}: models.tiny.model_sha256_checksum: "
                         f"{self.tmp / 'tiny.pb'} has SHA-256 {actual}, but the deployment "
                         f"file expects {expected}")

    def test_missing_file(self):
        config = self.config()
        (self.tmp / "tiny.pb").unlink()
        with self.assertRaisesRegex(ConfigError, r"deploy\.yml: models\.tiny\.model_file_path: "
                                                 r".*tiny\.pb: does not exist$"):
            fetch.model_files(config, config.models["tiny"])

    def test_file_url_is_downloaded_once_into_the_cache(self):
        config = self.config()
        model = config.models["tiny"]
        model.model_file_path = (self.tmp / "tiny.pb").as_uri()
        first, _ = fetch.model_files(config, model)
        self.assertTrue(str(first).startswith(str(self.tmp / "build" / "downloads")))
        self.assertEqual(first.read_bytes(), (self.tmp / "tiny.pb").read_bytes())
        (self.tmp / "tiny.pb").unlink()  # the cached copy is enough now
        second, _ = fetch.model_files(config, model)
        self.assertEqual(first, second)

    def test_download_failures_are_one_message(self):
        config = self.config()
        model = config.models["tiny"]
        with socket.socket() as probe:  # a local port nobody listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        for url in (f"http://127.0.0.1:{port}/m.onnx", (self.tmp / "absent.pb").as_uri()):
            model.model_file_path = url
            with self.subTest(url=url), self.assertRaises(ConfigError) as caught:
                fetch.model_files(config, model)
            self.assertRegex(str(caught.exception),
                             rf"^{config.path}: models\.tiny\.model_file_path: cannot download "
                             rf"{url}: .+")

    def test_missing_zoo_file_runs_the_generator(self):
        config = self.config()
        model = config.models["tiny"]
        model.model_file_path = "build/zoo/not_generated_yet.onnx"
        target = fetch.ZOO_DIR / "not_generated_yet.onnx"
        self.assertFalse(target.exists())
        with mock.patch.object(fetch, "generate_zoo") as generate:
            with self.assertRaisesRegex(ConfigError, "does not exist"):
                fetch.model_files(config, model)
        generate.assert_called_once_with("not_generated_yet.onnx")
        with mock.patch.object(fetch, "ZOO_SCRIPT", self.tmp / "make_zoo.py"), \
                self.assertRaisesRegex(UserError, r"model zoo generator .* is missing"):
            fetch.generate_zoo()


if __name__ == "__main__":
    unittest.main()
