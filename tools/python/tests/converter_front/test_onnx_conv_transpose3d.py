"""3-D ConvTranspose (Deconv3D) and 1-D edge cases, compared with ONNX
Runtime through the converter's numpy runner."""
import unittest

import numpy as np
from onnx import helper

from tests.converter_front.helpers import (check_against_ort, convert_model, initializer,
                                           make_model, ort_run, random_feeds, rng)
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN


def _model(x_shape, w_shape, attrs, bias: bool, offset: int):
    generator = rng(offset)
    inits = [initializer("w", generator.uniform(-1, 1, w_shape).astype("float32"))]
    inputs = ["x", "w"]
    if bias:
        out_channels = w_shape[1] * attrs.get("group", 1)
        inits.append(initializer("b", generator.uniform(-1, 1, [out_channels])
                                 .astype("float32")))
        inputs.append("b")
    return make_model([helper.make_node("ConvTranspose", inputs, ["y"], **attrs)],
                      {"x": x_shape}, {"y": None}, inits, opset=17)


class ConvTranspose3dTest(unittest.TestCase):
    def test_3d_against_onnxruntime(self):
        cases = [
            ([1, 1, 3, 4, 5], [1, 2, 3, 3, 3], {}, False),
            ([2, 3, 3, 2, 4], [3, 2, 3, 2, 3],
             dict(strides=[2, 2, 2], pads=[1, 0, 1, 1, 1, 0], output_padding=[1, 1, 0]), True),
            ([1, 2, 2, 3, 3], [2, 3, 2, 3, 2],
             dict(strides=[1, 2, 3], dilations=[2, 1, 2], pads=[0, 1, 2, 1, 0, 0]), True),
            ([2, 4, 2, 3, 2], [4, 3, 2, 2, 3],
             dict(group=2, strides=[2, 1, 2], dilations=[1, 2, 1], output_padding=[0, 1, 1]),
             True),
            ([1, 3, 3, 3, 3], [3, 1, 3, 3, 3], dict(group=3, strides=[2, 2, 2],
                                                    pads=[1, 1, 1, 1, 1, 1]), False),
            ([1, 2, 1, 1, 2], [2, 2, 4, 1, 2], dict(strides=[3, 3, 3]), True),
            ([1, 2, 3, 4, 3], [2, 2, 3, 3, 2], dict(strides=[2, 2, 2],
                                                    output_shape=[8, 9, 7]), True),
            ([1, 2, 3, 4, 3], [2, 2, 3, 2, 2], dict(strides=[2, 2, 2],
                                                    auto_pad="SAME_UPPER"), False),
            ([1, 2, 3, 4, 3], [2, 2, 3, 2, 2], dict(strides=[2, 1, 2],
                                                    auto_pad="SAME_LOWER"), True),
        ]
        for index, (x_shape, w_shape, attrs, bias) in enumerate(cases):
            with self.subTest(case=index):
                model = _model(x_shape, w_shape, attrs, bias, index)
                converted = check_against_ort(self, model, {"x": x_shape})
                self.assertEqual([op.type for op in converted.net_def.op], ["Deconv3D"])

    def test_engine_matches_onnxruntime(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
        model = _model([2, 4, 3, 2, 4], [4, 3, 3, 2, 3],
                       dict(group=2, strides=[2, 2, 2], dilations=[1, 2, 1],
                            pads=[1, 0, 1, 1, 1, 0], output_padding=[1, 1, 0]), True, 40)
        feeds = random_feeds({"x": [2, 4, 3, 2, 4]}, offset=40)
        want = ort_run(model, feeds)[0]
        converted = convert_model(model, {"x": [2, 4, 3, 2, 4]}, ["y"])
        got = run_converted(self, converted, feeds)["y"]
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-5)

    def test_1d_edges_against_onnxruntime(self):
        cases = [
            ([2, 3, 5], [3, 2, 3], dict(strides=[2], pads=[1, 2], output_padding=[1]), True),
            ([1, 4, 4], [4, 1, 3], dict(group=2, strides=[3], dilations=[2]), True),
            ([1, 2, 1], [2, 3, 4], dict(strides=[2]), False),
        ]
        for index, (x_shape, w_shape, attrs, bias) in enumerate(cases):
            with self.subTest(case=index):
                check_against_ort(self, _model(x_shape, w_shape, attrs, bias, 20 + index),
                                  {"x": x_shape})

    def test_wrong_attribute_lengths_are_refused(self):
        from mace_converter.api import ConversionError
        model = _model([1, 1, 3, 4, 5], [1, 1, 2, 2, 2], dict(strides=[2, 2]), False, 0)
        with self.assertRaisesRegex(ConversionError, "strides .* must have 3 values"):
            convert_model(model, {"x": [1, 1, 3, 4, 5]}, ["y"])


if __name__ == "__main__":
    unittest.main()
