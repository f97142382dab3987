"""The zoo validation table: parsing converter.py's validation and step
lines, and the markdown it prints. The end-to-end runs themselves are
tools/zoo_validate.sh (minutes); the converter CLI tests cover one model."""
import tempfile
import unittest
from pathlib import Path

import yaml

from mace_tools import zoo_validate

RUN_OUTPUT = """==> run mobilenet_v2 (host, CPU)
    run mobilenet_v2 (host, CPU): 0.4 s
==> validate mobilenet_v2 (host, CPU)
    output: cosine 0.999998 (>= 0.999), SQNR 51.3 dB, max abs error 2.1e-05  PASS
    aux: cosine 0.990000 (>= 0.999), SQNR inf dB, max abs error 0.5  FAIL
    validate mobilenet_v2 (host, CPU): 1.2 s
    mobilenet_v2: 65 ops, 100 weights (1 bytes)
"""


class ZooValidateTest(unittest.TestCase):
    def test_validation_lines(self):
        found = zoo_validate.parse_validations(RUN_OUTPUT)
        self.assertEqual([(v.output, v.cosine, v.sqnr, v.max_abs_error, v.passed) for v in found],
                         [("output", 0.999998, "51.3", "2.1e-05", True),
                          ("aux", 0.99, "inf", "0.5", False)])

    def test_step_times(self):
        steps = zoo_validate.parse_steps(RUN_OUTPUT + "    run other (host, CPU): 0.6 s\n")
        self.assertEqual(steps, {"run": 1.0, "validate": 1.2})

    def test_table_marks_failures(self):
        good = zoo_validate.ModelResult("a", zoo_validate.parse_validations(RUN_OUTPUT)[:1],
                                        {"build": 3.0})
        bad = zoo_validate.ModelResult("b", error="build failed: boom")
        self.assertTrue(good.passed)
        self.assertFalse(bad.passed)
        table = zoo_validate.format_table([good, bad])
        self.assertIn("| a | output | 0.999998 | 51.3 | 2.1e-05 | pass |", table)
        self.assertIn("| b | - | - | - | - | FAIL: build failed: boom |", table)
        self.assertIn("| a | 3.0 |", table)
        self.assertIn("| b | - |", table)

    def test_runtime_override_copies_the_deployment_file(self):
        source = zoo_validate.REPO / "models" / "tiny_tf.yml"
        with tempfile.TemporaryDirectory() as tmp:
            path = zoo_validate.override_config(source, "gpu", "fp32_fp32", Path(tmp))
            self.assertEqual(path.name, "tiny_tf.gpu_fp32_fp32.yml")
            document = yaml.safe_load(path.read_text())
            default = yaml.safe_load(zoo_validate.override_config(
                source, "cpu+gpu", None, Path(tmp)).read_text())
        original = yaml.safe_load(source.read_text())
        self.assertEqual(document["library_name"], "tiny_tf_gpu_fp32_fp32")
        self.assertEqual(document["target_abis"], ["host"])
        model = document["models"]["tiny_tf"]
        self.assertEqual((model["runtime"], model["data_type"]), ("gpu", "fp32_fp32"))
        self.assertEqual(model["subgraphs"], original["models"]["tiny_tf"]["subgraphs"])
        self.assertEqual(default["library_name"], "tiny_tf_cpu_gpu")
        self.assertEqual(default["models"]["tiny_tf"]["runtime"], "cpu+gpu")
        self.assertNotIn("data_type", default["models"]["tiny_tf"])


if __name__ == "__main__":
    unittest.main()
