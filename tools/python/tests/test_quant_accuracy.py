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


class QdqRowTest(unittest.TestCase):
    def test_one_quantum_cosine_and_top1_against_the_qdq_model(self):
        expected = [{"y": np.array([[0.0, 0.5, 1.0, 1.5]])},
                    {"y": np.array([[2.0, 1.0, 0.0, 0.5]])}]
        # First sample: every value within one quantum (0.5), argmax kept;
        # second: one value 2 quanta off, which moves the argmax.
        got = [{"out": np.array([[0.0, 1.0, 1.1, 1.5]])},
               {"out": np.array([[2.0, 1.0, 0.0, 2.5 - 0.0001]])}]
        floating = [{"y": np.array([[0.0, 0.5, 1.0, 1.5]])}] * 2
        row = qa._qdq_row("m", fake_model(3, 1), got, expected, floating, "y", 0.5)
        self.assertEqual((row.uint8_ops, row.ops, row.samples, row.scale), (3, 4, 2, 0.5))
        self.assertAlmostEqual(row.within_quantum, (1 + 3 / 4) / 2)
        self.assertEqual(row.top1, 0.5)
        self.assertAlmostEqual(row.cosine_min, min(
            qa.cosine(g["out"], e["y"]) for g, e in zip(got, expected)))
        self.assertAlmostEqual(row.float_cosine_min, qa.cosine(got[1]["out"], floating[0]["y"]))

    def test_an_unquantized_output_has_no_quantum(self):
        expected = [{"y": np.array([[0.25, 0.75]])}]
        got = [{"out": np.array([[0.3, 0.7]])}]
        row = qa._qdq_row("m", fake_model(1, 1), got, expected, expected, "y", None)
        self.assertIsNone(row.within_quantum)
        self.assertEqual(row.top1, 1.0)
        self.assertIn("within one quantum n/a", qa.format_qdq_row(row))


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

    def test_markdown_with_the_qdq_import(self):
        qdq = [qa.QdqRow("ppocr_cls", 72, 230, None, None, 0.9990, 1.0, 0.9950, 8),
               qa.QdqRow("resnet18", 32, 34, 0.03125, 0.9375, 0.99991, None, 0.9998, 8)]
        text = qa.markdown(self.rows(), 16, 8, qdq)
        lines = text.splitlines()
        header = lines.index("| model | uint8 ops | output scale | within one quantum | "
                             "cosine (min) | top-1 agreement | cosine against float (min) |")
        self.assertEqual(lines[header + 2], "| PP-OCR v2 direction classifier (real weights) | "
                                            "72/230 | n/a | n/a | 0.9990 | 100% | 0.9950 |")
        self.assertEqual(lines[header + 3], "| resnet18 | 32/34 | 0.03125 | 93.8% | 0.9999 | "
                                            "n/a | 0.9998 |")
        self.assertIn("same 16 calibration inputs", text)
        self.assertNotIn("within one quantum", qa.markdown(self.rows(), 16, 8))

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
        self.assertTrue(qa.parse_args([]).qdq)
        self.assertFalse(qa.parse_args(["--no-qdq"]).qdq)
        for argv in (["--models", "alexnet"], ["--methods", "entropy"], ["--evaluation", "0"]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit), \
                    contextlib.redirect_stderr(io.StringIO()):
                qa.parse_args(argv)


if __name__ == "__main__":
    unittest.main()
