"""The converter's DSP op list is mace/dsp/ops.inc's, and the wire numbers
of the graph format stay what hosts and DSP images already send."""
from __future__ import annotations

import unittest

from mace_converter import dsp_op_list, dsp_ops
from mace_tools.dsp_op_list import GENERATED, OPS_INC, parse, render

# The graph format's op type numbers (mace/dsp/graph_format.h): a model
# built by one version runs on a DSP image of another, so these never change.
WIRE_NUMBERS = {"Conv2D": 1, "DepthwiseConv2d": 2, "Pooling": 3, "Eltwise": 4,
                "FullyConnected": 6, "Concat": 7, "Softmax": 8, "ResizeBilinear": 9}
KERNEL_ONLY_NUMBERS = {"Clamp": 5}


class DspOpListTest(unittest.TestCase):
    def test_generated_file_matches_ops_inc(self):
        expected = render(parse(OPS_INC.read_text()))
        self.assertEqual(GENERATED.read_text(), expected,
                         "mace_converter/dsp_op_list.py differs from mace/dsp/ops.inc: run "
                         "PYTHONPATH=tools/python .venv/bin/python -m mace_tools.dsp_op_list")

    def test_wire_numbers_are_unchanged(self):
        ops = parse(OPS_INC.read_text())
        for name, number in WIRE_NUMBERS.items():
            self.assertEqual(ops.kernels.get(name), number, name)
        for name, number in KERNEL_ONLY_NUMBERS.items():
            self.assertEqual(ops.kernel_only.get(name), number, name)

    def test_placement_offers_the_listed_types(self):
        self.assertEqual(set(dsp_ops.DSP_OPS), set(dsp_op_list.DSP_KERNELS))
        self.assertEqual(set(dsp_ops.RENAMES), set(dsp_op_list.RENAMES))

    def test_parse_refuses_malformed_and_duplicate_entries(self):
        with self.assertRaisesRegex(ValueError, "not a list entry"):
            parse('MACE_DSP_OP(Conv2D, 1, Conv)\n')
        with self.assertRaisesRegex(ValueError, "used twice"):
            parse('MACE_DSP_OP(A, 1, Conv, "A")\nMACE_DSP_KERNEL_ONLY(B, 1, Conv)\n')

    def test_a_new_line_reaches_the_converter(self):
        ops = parse(OPS_INC.read_text() + 'MACE_DSP_OP(Gather, 10, Elementwise, "Gather")\n')
        self.assertEqual(ops.kernels["Gather"], 10)
        self.assertIn('"Gather": 10,', render(ops))


if __name__ == "__main__":
    unittest.main()
