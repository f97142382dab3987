"""The structure-aware converter fuzz targets (tools/converter_fuzz.py
--smoke): seeded deployment files and ONNX graphs end in a converter error or
a conversion, and a case that breaks a rule is refused."""
import unittest

from mace_tools import converter_fuzz

SEED = 1
CASES = 120


class StructureFuzzSmokeTest(unittest.TestCase):
    def test_deploy_and_onnx_graph(self):
        targets = converter_fuzz.targets()
        for name in ("deploy", "onnx_graph"):
            with self.subTest(target=name, seed=SEED):
                tally, findings = converter_fuzz.fuzz(targets[name], seed=SEED, seconds=600,
                                                      max_cases=CASES, timeout=60)
                print(f"{name}: seed {SEED}, {tally}")
                self.assertEqual(sum(tally.values()), CASES)
                self.assertEqual(findings, [], "\n".join(f"{f.kind}: {f.detail}"
                                                         for f in findings))
                # Both outcomes occur, so the seeds and mutations test something.
                self.assertGreater(tally["error"], CASES // 3, tally)
                self.assertGreater(tally["ok"], 0, tally)


if __name__ == "__main__":
    unittest.main()
