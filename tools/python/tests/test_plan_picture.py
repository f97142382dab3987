"""tools/plan_picture.py: axis labels, the lower-bound legend, image plans and
the error for an empty plan."""
import contextlib
import importlib.util
import io
import re
import tempfile
import unittest
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "plan_picture.py"
_SPEC = importlib.util.spec_from_file_location("plan_picture", _PATH)
plan_picture = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(plan_picture)


def tensors(rows):
    return [plan_picture.Tensor(str(i), size, first, last)
            for i, (size, first, last) in enumerate(rows)]


class PlanPictureTest(unittest.TestCase):
    def test_offsets_plan_labels_and_legend(self):
        plan = {"strategy": "greedy_by_size", "mode": "offsets", "offsets": [0, 3000],
                "total": 5000, "lower_bound": 4000}
        svg = plan_picture.render(plan, tensors([(3000, 0, 4999), (2000, 5000, 9999)]),
                                  1000, 600)
        self.assertIn('text-anchor="middle">5,000</text>', svg)
        # The last op tick ends at the plot's right edge.
        self.assertIn('text-anchor="end">10,000</text>', svg)
        self.assertIn(">offset (bytes)</text>", svg)
        legend = re.search(r'<text x="[\d.]+" y="([\d.]+)" fill="red"[^>]*>lower bound 4,000',
                           svg)
        self.assertIsNotNone(legend)
        self.assertLess(float(legend.group(1)), plan_picture.MARGIN_TOP)

    def test_image_plans_are_labelled_as_areas(self):
        plan = {"strategy": "equality", "mode": "objects", "object_ids": [0, 1],
                "object_sizes": [[4, 4], [2, 8]], "total": 32, "lower_bound": 32}
        svg = plan_picture.render(plan, tensors([(16, 0, 1), (16, 1, 2)]), 600, 400)
        self.assertIn(">area, objects stacked (pixels)</text>", svg)
        self.assertNotIn("offset (bytes)", svg)
        self.assertIn("at area 16", svg)

    def test_an_empty_plan_file_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            plan = Path(tmp) / "plan.json"
            plan.write_text("")
            records = Path(tmp) / "r.csv"
            records.write_text("size,first,last\n1,0,0\n")
            error = io.StringIO()
            with contextlib.redirect_stderr(error):
                status = plan_picture.main([str(plan), str(records), "-o", str(Path(tmp) / "p")])
        self.assertEqual(status, 1)
        self.assertIn("plan.json is empty; mace_plan's JSON output was expected",
                      error.getvalue())


if __name__ == "__main__":
    unittest.main()
