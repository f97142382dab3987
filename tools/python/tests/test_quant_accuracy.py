"""tools/quant_accuracy.py without running models: the metrics of one row,
the table, the docs block it replaces and its command line."""
from __future__ import annotations

import contextlib
import io
import unittest
from types import SimpleNamespace

import numpy as np

from mace_converter.api import TensorSpec
from mace_converter.progress import UserError
from mace_tools import quant_accuracy as qa


def fake_model(uint8_ops: int, float_ops: int, output: str = "out"):
    ops = [SimpleNamespace(arg=[SimpleNamespace(name="T", i=qa.DT_UINT8)])] * uint8_ops + \
        [SimpleNamespace(arg=[])] * float_ops
    return SimpleNamespace(net_def=SimpleNamespace(op=ops),
                           outputs=[TensorSpec(output, [1, 4])])


class RowTest(unittest.TestCase):
    def test_metrics(self):
        reference = [{"y": np.array([[1.0, 2.0, 3.0, 0.0]])},
                     {"y": np.array([[3.0, 2.0, 1.0, 0.0]])}]
        got = [{"out": np.array([[1.0, 2.0, 3.0, 0.0]])},
               {"out": np.array([[1.0, 2.0, 3.0, 0.0]])}]
        row = qa._row("m", "kl", fake_model(3, 2), got, reference, "y")
        self.assertEqual((row.uint8_ops, row.ops, row.samples), (3, 5, 2))
        self.assertEqual(row.cosine_min, qa.cosine(got[1]["out"], reference[1]["y"]))
        self.assertAlmostEqual(row.cosine_mean, (1 + row.cosine_min) / 2)
        self.assertEqual(row.top1, 0.5)
        self.assertAlmostEqual(row.centered_mean, 0.0)   # the second centres opposite

    def test_two_classes_have_no_centered_cosine(self):
        reference = [{"y": np.array([[0.2, 0.8]])}, {"y": np.array([[0.6, 0.4]])}]
        got = [{"out": r["y"] + 0.01} for r in reference]
        row = qa._row("m", "minmax", fake_model(1, 0), got, reference, "y")
        self.assertIsNone(row.centered_mean)
        self.assertEqual(row.top1, 1.0)

    def test_inputs_are_fixed_and_within_range(self):
        spec = TensorSpec("x", [2, 3], (0.0, 2.0))
        a, b = qa.inputs_for([spec], 3, 5), qa.inputs_for([spec], 3, 5)
        np.testing.assert_array_equal(a[2]["x"], b[2]["x"])
        self.assertFalse(np.array_equal(a[0]["x"], a[1]["x"]))
        self.assertTrue(all(0 <= s["x"].min() and s["x"].max() < 2 for s in a))


class TableTest(unittest.TestCase):
    def rows(self):
        return [qa.Row("ppocr_cls", "minmax", 33, 198, 0.99941, 0.99972, None, 1.0, 8),
                qa.Row("resnet18", "kl", 20, 40, 0.95, 0.97, 0.5, None, 8)]

    def test_markdown(self):
        lines = qa.markdown(self.rows(), 16, 8).splitlines()
        self.assertEqual(lines[2], "| PP-OCR v2 direction classifier (real weights) | minmax "
                                   "| 33/198 | 0.9994 | 0.9997 | n/a | 100% |")
        self.assertEqual(lines[3], "| resnet18 | kl | 20/40 | 0.9500 | 0.9700 | 0.5000 | n/a |")
        self.assertIn("Calibrated on 16 and compared on 8", lines[-1])

    def test_docs_block(self):
        text = f"before\n{qa.BEGIN}\nold table\n{qa.END}\nafter\n"
        replaced = qa.replace_in_docs(text, "new table")
        self.assertEqual(replaced, f"before\n{qa.BEGIN}\nnew table\n{qa.END}\nafter\n")
        with self.assertRaisesRegex(UserError, "has no"):
            qa.replace_in_docs("no markers", "t")
        self.assertIn(qa.BEGIN, qa.DOCS.read_text())

    def test_command_line(self):
        args = qa.parse_args(["--models", "resnet18, ppocr_cls", "--methods", "kl"])
        self.assertEqual((args.models, args.methods), (["resnet18", "ppocr_cls"], ["kl"]))
        self.assertEqual(qa.parse_args([]).methods, ["minmax", "percentile", "kl"])
        for argv in (["--models", "alexnet"], ["--methods", "entropy"], ["--evaluation", "0"]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit), \
                    contextlib.redirect_stderr(io.StringIO()):
                qa.parse_args(argv)


if __name__ == "__main__":
    unittest.main()
