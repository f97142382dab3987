"""The deployment files in models/ load, and their model zoo checksums match
the zoo generator's checksums.json."""
import json
import unittest

from mace_converter import fetch
from mace_converter.config import load_config
from mace_converter.progress import REPO

MODELS = REPO / "models"


class ModelsTest(unittest.TestCase):
    def test_deployment_files(self):
        checksums = json.loads((fetch.ZOO_SCRIPT.parent / "checksums.json").read_text())
        files = sorted(MODELS.glob("*.yml"))
        self.assertIn(MODELS / "mobilenet_v2.yml", files)
        platforms = set()
        for path in files:
            with self.subTest(file=path.name):
                config = load_config(path)
                for model in config.models.values():
                    platforms.add(model.platform)
                    for location, checksum in (
                            (model.model_file_path, model.model_sha256_checksum),
                            (model.weight_file_path, model.weight_sha256_checksum)):
                        if location and location.startswith("build/zoo/"):
                            name = location[len("build/zoo/"):]
                            self.assertIn(name, checksums)
                            self.assertEqual(checksum, checksums[name]["sha256"], name)
        self.assertEqual(platforms, {"onnx", "tensorflow", "caffe"})


if __name__ == "__main__":
    unittest.main()
