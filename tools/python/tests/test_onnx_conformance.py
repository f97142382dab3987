"""ONNX's backend node tests through the real converter and mace_run
(tools/onnx_conformance.py), over every claimed test: none may crash, hang
or give numbers that differ from the suite's; the pass rate may not drop.

Needs the host mace_run binary (MACE_RUN, as for test_mace_run_cli).
"""
import importlib.util
import io
import re
import sys
import unittest
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np

from tests.test_mace_run_cli import MACE_RUN

REPO = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location("onnx_conformance",
                                              REPO / "tools" / "onnx_conformance.py")
conformance = importlib.util.module_from_spec(spec)
sys.modules["onnx_conformance"] = conformance   # dataclasses look the module up
spec.loader.exec_module(conformance)

# The measured pass rate of the claimed tests, less a little: a change that
# loses passes fails here and must say why in the report.
MIN_PASS_RATE = 0.98


class OpsDocTest(unittest.TestCase):
    """docs/reference/ops.md's ONNX table names every op type the converter claims."""

    def test_every_claimed_op_has_a_row(self):
        text = (REPO / "docs" / "reference" / "ops.md").read_text()
        section = text.split("## ONNX op types", 1)[1].split("\n## ", 1)[0]
        named = set()
        for line in section.splitlines():
            if line.startswith("| ") and not line.startswith("| ONNX op |"):
                first = line.split("|")[1]
                named.update(re.findall(r"[A-Za-z][A-Za-z0-9]*", first))
        missing = sorted(conformance.claimed_ops() - named)
        self.assertEqual(missing, [], "claimed ONNX ops without a row in docs/reference/ops.md")


class CompareTest(unittest.TestCase):
    def test_onnx_tolerances(self):
        want = np.array([1.0, -2.0, 1e-9, np.inf, np.nan], np.float32)
        self.assertEqual(conformance.compare(want.copy(), want), "")
        near = want.copy()
        near[0] = 1.0009   # within 1e-7 + 1e-3 * 1
        near[2] = 9e-8     # within atol
        self.assertEqual(conformance.compare(near, want), "")
        far = want.copy()
        far[1] = -2.003    # beyond 1e-3 * 2
        self.assertIn("1 of 5 values differ; at [1]", conformance.compare(far, want))
        nan = want.copy()
        nan[0] = np.nan
        self.assertIn("1 of 5", conformance.compare(nan, want))

    def test_integers_exact_and_shapes_strict(self):
        want = np.array([[3, 4]], np.int64)
        self.assertEqual(conformance.compare(np.array([[3.0, 4.0]], np.float32), want), "")
        self.assertIn("got 5.0, expected 4", conformance.compare(
            np.array([[3.0, 5.0]], np.float32), want))
        self.assertIn("shape [2, 1], expected [1, 2]",
                      conformance.compare(np.zeros((2, 1)), want))


class TensorValuesTest(unittest.TestCase):
    def test_narrow_floats_become_their_values(self):
        from onnx import TensorProto, helper
        # bfloat16 0x3F80 is 1.0 and 0xC040 is -3.0, whether stored as
        # bfloat16 or as the uint16 bits the suite sometimes writes.
        info = helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2])
        bits = helper.make_tensor("x", TensorProto.UINT16, [2], [0x3F80, 0xC040])
        np.testing.assert_array_equal(conformance.tensor_values(bits, info), [1.0, -3.0])
        # float8 E4M3FN 0x7E is 448, 0x38 is 1.0; E5M2 0x7B is 57344.
        for elem, raw, want in ((TensorProto.FLOAT8E4M3FN, [0x7E, 0x38], [448.0, 1.0]),
                                (TensorProto.FLOAT8E5M2, [0x7B, 0xBC], [57344.0, -1.0])):
            proto = helper.make_tensor("x", elem, [2], bytes(raw), raw=True)
            info = helper.make_tensor_value_info("x", elem, [2])
            np.testing.assert_array_equal(conformance.tensor_values(proto, info), want)


@unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is not built")
class NodeTestsTest(unittest.TestCase):
    def test_claimed_node_tests(self):
        out = io.StringIO()
        with redirect_stdout(out):
            status = conformance.main(["--mace_run", str(MACE_RUN), "--verbose",
                                       "--min-pass-rate", str(MIN_PASS_RATE)])
        lines = out.getvalue().splitlines()
        bad = [line for line in lines if line.split(" ", 1)[0] in ("crash", "hang", "mismatch")]
        self.assertEqual(bad, [], "claimed node tests must pass or be refused clearly")
        self.assertEqual(status, 0, lines[-1] if lines else "no output")
        # Refusals the converter must give rather than a silent rewrite.
        refused = {line.split()[1].rstrip(":"): line for line in lines
                   if line.startswith("refused")}
        self.assertIn("training_mode", refused["test_training_dropout"])
        self.assertIn("Cast to string", refused["test_cast_FLOAT_to_STRING"])
        passed = {line.split()[1].rstrip(":") for line in lines if line.startswith("pass")}
        for name in ("test_cast_FLOAT_to_BFLOAT16", "test_cast_FLOAT_to_FLOAT8E4M3FN",
                     "test_cast_no_saturate_FLOAT_to_FLOAT8E5M2", "test_cast_FLOAT_to_INT4",
                     "test_clip_example", "test_cumsum_1d", "test_tril_zero", "test_not_2d",
                     "test_nllloss_NCd1_weight_ii", "test_sce_mean_weight_ii_3d",
                     "test_einsum_inner_prod", "test_batchnorm_example_training_mode",
                     "test_range_float_type_positive_delta", "test_onehot_with_axis",
                     "test_hannwindow", "test_reversesequence_batch",
                     "test_maxunpool_export_with_output_shape", "test_div_uint8",
                     "test_affine_grid_3d", "test_gridsample_volumetric_nearest_align_corners_0",
                     "test_einsum_batch_diagonal", "test_hannwindow_expanded", "test_wrap_pad",
                     "test_reduce_log_sum_exp_empty_set",
                     "test_constantofshape_int_shape_zero",
                     "test_reduce_sum_empty_set_non_reduced_axis_zero",
                     "test_slice_start_out_of_bounds", "test_reshape_allowzero_reordered",
                     "test_center_crop_pad_crop_and_pad_expanded",
                     "test_center_crop_pad_crop_axes_chw_expanded",
                     "test_center_crop_pad_crop_axes_hwc_expanded",
                     "test_center_crop_pad_crop_expanded",
                     "test_center_crop_pad_crop_negative_axes_hwc_expanded",
                     "test_center_crop_pad_pad_expanded"):
            self.assertIn(name, passed)


if __name__ == "__main__":
    unittest.main()
