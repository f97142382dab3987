"""3-D Conv (Conv3D), compared with ONNX Runtime through the converter's
numpy runner and through the engine (mace_run)."""
import unittest

import numpy as np
from onnx import helper

from tests.converter_front.helpers import (check_against_ort, convert_model, initializer,
                                           make_model, ort_run, random_feeds, rng)
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN


def _model(x_shape, w_shape, attrs, bias: bool, offset: int, relu: bool = False):
    generator = rng(offset)
    inits = [initializer("w", generator.uniform(-1, 1, w_shape).astype("float32"))]
    inputs = ["x", "w"]
    if bias:
        inits.append(initializer("b", generator.uniform(-1, 1, [w_shape[0]]).astype("float32")))
        inputs.append("b")
    nodes = [helper.make_node("Conv", inputs, ["c" if relu else "y"], **attrs)]
    if relu:
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    return make_model(nodes, {"x": x_shape}, {"y": None}, inits, opset=17)


# (input, weights, attributes, bias): kernels 1 and 3, stride 2, dilation 2,
# asymmetric pads, odd sizes, groups (depthwise-like too), auto_pad.
CASES = [
    ([1, 1, 5, 5, 5], [1, 1, 3, 3, 3], {}, False),
    ([2, 5, 3, 4, 5], [7, 5, 1, 1, 1], {}, True),
    ([1, 3, 7, 5, 9], [5, 3, 3, 3, 3], dict(strides=[2, 2, 2], pads=[1, 0, 1, 0, 2, 1]), True),
    ([1, 2, 6, 7, 8], [9, 2, 3, 2, 3],
     dict(strides=[1, 2, 1], dilations=[2, 2, 1], pads=[2, 1, 0, 1, 0, 2]), True),
    ([2, 6, 4, 5, 3], [4, 3, 3, 1, 2], dict(group=2, strides=[1, 1, 2],
                                            pads=[1, 0, 0, 1, 0, 1]), True),
    ([1, 3, 5, 5, 5], [6, 1, 3, 3, 3], dict(group=3, strides=[2, 1, 2], dilations=[1, 2, 1],
                                            pads=[1, 2, 1, 1, 2, 1]), False),
    ([1, 2, 5, 4, 3], [3, 2, 3, 2, 2], dict(strides=[2, 2, 2], auto_pad="SAME_UPPER"), True),
    ([1, 2, 5, 4, 3], [3, 2, 2, 3, 2], dict(strides=[2, 1, 2], auto_pad="SAME_LOWER"), False),
    ([1, 2, 5, 4, 3], [3, 2, 2, 3, 2], dict(auto_pad="VALID", kernel_shape=[2, 3, 2]), True),
]


class Conv3dTest(unittest.TestCase):
    def test_against_onnxruntime(self):
        for index, (x_shape, w_shape, attrs, bias) in enumerate(CASES):
            with self.subTest(case=index):
                converted = check_against_ort(self, _model(x_shape, w_shape, attrs, bias, index),
                                              {"x": x_shape})
                self.assertEqual([op.type for op in converted.net_def.op], ["Conv3D"])

    def test_relu_is_fused(self):
        model = _model([1, 3, 7, 5, 9], [5, 3, 3, 3, 3], dict(strides=[2, 2, 2]), True, 9,
                       relu=True)
        converted = check_against_ort(self, model, {"x": [1, 3, 7, 5, 9]})
        ops = list(converted.net_def.op)
        self.assertEqual([op.type for op in ops], ["Conv3D"])
        args = {arg.name: arg.s for arg in ops[0].arg}
        self.assertEqual(args.get("activation"), b"RELU")

    def test_engine_matches_onnxruntime(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
        for index, (x_shape, w_shape, attrs, bias) in enumerate(CASES):
            with self.subTest(case=index):
                model = _model(x_shape, w_shape, attrs, bias, 20 + index, relu=index == 2)
                feeds = random_feeds({"x": x_shape}, offset=20 + index)
                want = ort_run(model, feeds)[0]
                converted = convert_model(model, {"x": x_shape}, ["y"])
                got = run_converted(self, converted, feeds)["y"]
                np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-5)

    def test_bad_attributes_are_refused(self):
        from mace_converter.api import ConversionError
        model = _model([1, 1, 3, 4, 5], [1, 1, 2, 2, 2], dict(strides=[2, 2]), False, 0)
        # ONNX's checker refuses these before the converter looks.
        with self.assertRaisesRegex(ConversionError, "Conv node: Attribute strides has incorrect"):
            convert_model(model, {"x": [1, 1, 3, 4, 5]}, ["y"])
        model = _model([1, 1, 3, 4, 5], [1, 1, 2, 2, 2], dict(pads=[1, 1, 1]), False, 0)
        with self.assertRaisesRegex(ConversionError, "Conv node: Attribute pads has incorrect"):
            convert_model(model, {"x": [1, 1, 3, 4, 5]}, ["y"])


if __name__ == "__main__":
    unittest.main()
