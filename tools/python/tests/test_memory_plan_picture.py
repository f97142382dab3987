"""mace_run --memory_plan writes a model's own usage records and plan, and
tools/plan_picture.py draws them: a chain of convolutions whose plan must
place every pair of tensors alive at the same op apart, fit its total and
reach the lower bound the records give.

Needs the host mace_run (MACE_RUN, as in test_mace_run_cli).
"""
import csv
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_tools import builder
from tests.test_mace_run_cli import MACE_RUN

REPO = Path(__file__).resolve().parents[3]
CHANNELS = [2, 3, 5, 4, 2]


def chain_model(directory: Path) -> tuple[Path, Path]:
    """x -> conv -> conv -> conv -> conv, 1x1 with ReLU, on an 8x8 image."""
    rng = np.random.default_rng(3)
    net = builder.NetBuilder("chain")
    net.add_input("x", [1, CHANNELS[0], 8, 8])
    current = "x"
    for k, (cin, cout) in enumerate(zip(CHANNELS, CHANNELS[1:])):
        weight = net.add_weight(f"w{k}", rng.standard_normal((cout, cin, 1, 1)).astype(np.float32))
        bias = net.add_weight(f"b{k}", rng.standard_normal(cout).astype(np.float32))
        output = "y" if k == len(CHANNELS) - 2 else f"t{k}"
        net.add_op("Conv2D", [current, weight, bias], output, name=f"conv{k}", activation="RELU")
        current = output
    net.add_output("y", [1, CHANNELS[-1], 8, 8])
    pb, data = directory / "chain.pb", directory / "chain.data"
    net.save(pb, data)
    return pb, data


@unittest.skipUnless(MACE_RUN.exists(), f"build //mace/tools:mace_run ({MACE_RUN})")
class MemoryPlanPictureTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.pb, self.data = chain_model(self.dir)

    def tearDown(self):
        self.tmp.cleanup()

    def mace_run(self, *flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(MACE_RUN), f"--model_file={self.pb}",
                               f"--model_data_file={self.data}", "--round=1", *flags],
                              capture_output=True, text=True, timeout=60)

    def test_plan_of_the_model_is_sound_and_drawn(self):
        prefix = self.dir / "plan"
        result = self.mace_run(f"--memory_plan={prefix}", "--memory_strategy=greedy_by_size")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"wrote the memory plan to {prefix}.csv and {prefix}.json", result.stdout)
        with open(f"{prefix}.csv", newline="") as stream:
            rows = list(csv.DictReader(stream))
        plan = json.loads(Path(f"{prefix}.json").read_text())
        self.assertEqual(plan["mode"], "offsets")
        self.assertIn("greedy_by_size", plan["strategy"])
        self.assertEqual(len(plan["offsets"]), len(rows))
        names = [row["name"] for row in rows]
        # Every activation the chain makes is in the arena (4 bytes a float).
        for k, cout in enumerate(CHANNELS[1:-1]):
            row = rows[names.index(f"t{k}")]
            self.assertEqual(int(row["size"]), 4 * cout * 64)
        spans = [(int(r["size"]), int(r["first"]), int(r["last"]), offset)
                 for r, offset in zip(rows, plan["offsets"])]
        for i, (size_a, first_a, last_a, at_a) in enumerate(spans):
            self.assertLessEqual(at_a + size_a, plan["total"])
            for size_b, first_b, last_b, at_b in spans[i + 1:]:
                if first_a <= last_b and first_b <= last_a:
                    self.assertTrue(at_a + size_a <= at_b or at_b + size_b <= at_a,
                                    f"overlap: {spans}")
        ops = max(last for _, _, last, _ in spans) + 1
        live = max(sum(size for size, first, last, _ in spans if first <= op <= last)
                   for op in range(ops))
        self.assertEqual(plan["lower_bound"], live)
        self.assertGreaterEqual(plan["total"], live)

        svg = self.dir / "plan.svg"
        drawn = subprocess.run([sys.executable, str(REPO / "tools" / "plan_picture.py"),
                                f"{prefix}.json", f"{prefix}.csv", "-o", str(svg)],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(drawn.returncode, 0, drawn.stderr)
        text = svg.read_text()
        for name in names:
            self.assertIn(f"<title>tensor {name}: ", text)
        self.assertIn(f"lower bound {live:,}", text)

    def test_unwritable_plan_is_a_clean_error(self):
        result = self.mace_run(f"--memory_plan={self.dir / 'no' / 'such' / 'dir' / 'plan'}")
        self.assertGreater(result.returncode, 0, result.stdout)
        self.assertIn("cannot write", result.stderr)
        self.assertNotIn("Traceback", result.stderr)


if __name__ == "__main__":
    unittest.main()
