"""The zoo memory table: mace_run --compare_strategies on a small chain of
convolutions, parsed and formatted the way tools/zoo_memory.sh does it.

Needs the host mace_run binary (MACE_RUN, as for test_mace_run_cli).
"""
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_tools import builder, zoo_memory
from tests.test_mace_run_cli import MACE_RUN

STRATEGIES = ["naive", "equality", "greedy_in_order", "greedy_by_breadth", "greedy_by_size",
              "greedy_best", "mincostflow", "optimal"]


def chain_model(directory: Path) -> tuple[Path, Path]:
    """Four 3x3 convs whose outputs grow and shrink, so sharing matters."""
    rng = np.random.default_rng(11)
    net = builder.NetBuilder("chain")
    channels = [2, 8, 3, 8, 2]
    name = net.add_input("x", [1, channels[0], 16, 16])
    for layer in range(4):
        weight = rng.standard_normal((channels[layer + 1], channels[layer], 3, 3))
        output = f"y{layer}"
        net.add_op("Conv2D", [name, net.add_weight(f"w{layer}", weight.astype(np.float32))],
                   output, name=f"conv{layer}", pads=[1, 1, 1, 1])
        name = output
    net.add_output(name, [1, channels[-1], 16, 16])
    graph, data = directory / "chain.pb", directory / "chain.data"
    net.save(graph, data)
    return graph, data


class ZooMemoryTest(unittest.TestCase):
    def test_every_strategy_parsed_from_mace_run(self):
        self.assertTrue(MACE_RUN.exists(), f"build //mace/tools:mace_run first ({MACE_RUN})")
        with tempfile.TemporaryDirectory() as tmp:
            graph, data = chain_model(Path(tmp))
            done = subprocess.run([str(MACE_RUN), f"--model_file={graph}",
                                   f"--model_data_file={data}", "--compare_strategies"],
                                  capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = zoo_memory.parse_strategy_table(done.stdout)
        self.assertEqual([row.strategy for row in rows], STRATEGIES)
        by_name = {row.strategy: row for row in rows}
        bound = rows[0].lower_bound
        self.assertGreater(bound, 0)
        for row in rows:
            self.assertEqual(row.lower_bound, bound)
            self.assertGreaterEqual(row.arena, bound, row.strategy)
            self.assertLessEqual(row.arena, row.naive, row.strategy)
            self.assertGreaterEqual(row.plan_ms, 0.0)
        self.assertEqual(by_name["naive"].arena, by_name["naive"].naive)
        # Three intermediates of a chain: two are live at any op, so best
        # fit reaches the bound and beats one buffer per tensor.
        self.assertEqual(by_name["greedy_by_size"].arena, bound)
        self.assertLess(by_name["greedy_by_size"].arena, by_name["naive"].arena)

    def test_report_tables(self):
        rows = [zoo_memory.PlanRow("naive", 400, 100, 400, 0.01),
                zoo_memory.PlanRow("greedy_by_size", 150, 100, 400, 0.02)]
        report = zoo_memory.format_report({"m1": rows, "m2": rows[:1]})
        self.assertIn("| strategy | m1 | m2 |", report)
        self.assertIn("| greedy_by_size | 0.00 (+50.0%) | - |", report)
        self.assertIn("| naive | 0.01 | 0.01 |", report)
        self.assertIn("| max-live lower bound | 0.00 | 0.00 |", report)

    def test_table_row_with_planner_detail(self):
        text = ("strategy  arena bytes  lower bound  gap  naive bytes  plan ms\n"
                "optimal (fixed + optimal)   4096   4000   2.40%   9000   0.125\n"
                "output y [1,2]: 1 2\n")
        rows = zoo_memory.parse_strategy_table(text)
        self.assertEqual(len(rows), 1)
        self.assertEqual((rows[0].strategy, rows[0].arena, rows[0].lower_bound,
                          rows[0].naive, rows[0].plan_ms), ("optimal", 4096, 4000, 9000, 0.125))
        self.assertAlmostEqual(rows[0].gap_percent, 2.4)

    def test_gpu_memory_types(self):
        text = ("memory plan (greedy_by_size, planned in 0.015 ms)\n"
                "  naive sum        :        11328 bytes\n"
                "  memory type runtime              strategy          planned bytes    naive "
                "bytes    lower bound  blocks\n"
                "  CPU_BUFFER  CPU                  greedy_by_size             6144          "
                "11328           6144       1\n"
                "  GPU_IMAGE   GPU                  greedy_in_order            9216          "
                "13040           6912       5\n"
                "  relu6                            GPU_IMAGE              1         4096    "
                "2..3    \n")
        rows = zoo_memory.parse_memory_types(text)
        self.assertEqual([(r.memory_type, r.strategy, r.planned, r.naive, r.lower_bound,
                           r.blocks) for r in rows],
                         [("CPU_BUFFER", "greedy_by_size", 6144, 11328, 6144, 1),
                          ("GPU_IMAGE", "greedy_in_order", 9216, 13040, 6912, 5)])
        report = zoo_memory.format_gpu_report({("m", "fp16_fp32"): rows[1:]})
        self.assertIn("| m | fp16_fp32 | GPU_IMAGE | greedy_in_order | 0.01 | 0.01 | 0.01 | "
                      "1.33 | 5 |", report)


if __name__ == "__main__":
    unittest.main()
