"""LpPool (Pooling's LP type) for 1-D, 2-D and 3-D windows, p = 1, 2 and 3,
compared with ONNX Runtime through the converter's numpy runner and through
the engine (mace_run)."""
import unittest

import numpy as np
from onnx import helper

from tests.converter_front.helpers import (check_against_ort, convert_model, make_model,
                                           ort_run, random_feeds)
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN


def _model(x_shape, attrs, opset: int = 18):
    return make_model([helper.make_node("LpPool", ["x"], ["y"], **attrs)],
                      {"x": x_shape}, {"y": None}, [], opset=opset)


# (input, attributes, opset): p 1, 2 and 3 over 1-D, 2-D and 3-D windows,
# with strides, asymmetric pads, dilations, auto_pad and ceil_mode.
CASES = [
    ([2, 3, 9], dict(kernel_shape=[3], p=1, strides=[2], pads=[1, 2]), 18),
    ([1, 2, 11], dict(kernel_shape=[4], p=3, dilations=[2], ceil_mode=1, strides=[3]), 18),
    ([1, 2, 7], dict(kernel_shape=[2], p=2, auto_pad="SAME_UPPER", strides=[2]), 11),
    ([2, 3, 6, 7], dict(kernel_shape=[3, 2], p=2), 11),
    ([1, 2, 7, 6], dict(kernel_shape=[3, 3], p=1, strides=[2, 2], pads=[1, 0, 0, 1]), 18),
    ([1, 3, 8, 9], dict(kernel_shape=[2, 3], p=3, strides=[2, 2], dilations=[2, 1],
                        ceil_mode=1), 18),
    ([1, 2, 5, 5], dict(kernel_shape=[2, 2], auto_pad="SAME_LOWER", strides=[2, 2]), 7),
    ([1, 2, 4, 5, 6], dict(kernel_shape=[2, 2, 2], p=2), 18),
    ([2, 2, 5, 4, 7], dict(kernel_shape=[3, 2, 3], p=1, strides=[2, 1, 2],
                           pads=[1, 0, 1, 0, 1, 1]), 18),
    ([1, 3, 6, 5, 5], dict(kernel_shape=[2, 3, 2], p=3, strides=[2, 2, 2], dilations=[1, 1, 2],
                           ceil_mode=1), 18),
]


class LpPoolTest(unittest.TestCase):
    def test_against_onnxruntime(self):
        for index, (x_shape, attrs, opset) in enumerate(CASES):
            with self.subTest(case=index):
                check_against_ort(self, _model(x_shape, attrs, opset), {"x": x_shape})

    def test_engine_matches_onnxruntime(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
        for index, (x_shape, attrs, opset) in enumerate(CASES):
            with self.subTest(case=index):
                model = _model(x_shape, attrs, opset)
                feeds = random_feeds({"x": x_shape}, offset=60 + index)
                want = ort_run(model, feeds)[0]
                converted = convert_model(model, {"x": x_shape}, ["y"])
                self.assertIn("Pooling", [op.type for op in converted.net_def.op])
                got = run_converted(self, converted, feeds)["y"]
                np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-5)

    def test_bad_p_is_refused(self):
        from mace_converter.api import ConversionError
        with self.assertRaisesRegex(ConversionError, "p must be 1 or more"):
            convert_model(_model([1, 1, 4, 4], dict(kernel_shape=[2, 2], p=0)),
                          {"x": [1, 1, 4, 4]}, ["y"])


if __name__ == "__main__":
    unittest.main()
