"""AveragePool with count_include_pad=1 and ceil_mode=1 takes ONNX's
reference divisor: a last window that reaches past the declared padding
divides by all its taps, as ONNX Runtime does too. Compared with a small
numpy reference, ONNX's reference evaluator and ONNX Runtime."""
import unittest

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

from tests.converter_front.helpers import (check_against_ort, convert_model, make_model,
                                           random_feeds, run)


def numpy_average(x, kernel, strides, pads):
    """2-D average pooling as ONNX's reference computes it with
    count_include_pad and ceil_mode: zero padding out to the last window's
    end (no window here overhangs by 2 or more, so none moves), every
    window divided by its kernel size."""
    n, c, h, w = x.shape
    out = [-(-(size + pads[i] + pads[i + 2] - kernel[i]) // strides[i]) + 1
           for i, size in enumerate((h, w))]
    need = [(o - 1) * s + k for o, s, k in zip(out, strides, kernel)]
    padded = np.zeros((n, c, max(need[0], h + pads[0] + pads[2]),
                       max(need[1], w + pads[1] + pads[3])))
    padded[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = x
    y = np.zeros((n, c, *out))
    for i in range(out[0]):
        for j in range(out[1]):
            window = padded[:, :, i * strides[0]:i * strides[0] + kernel[0],
                            j * strides[1]:j * strides[1] + kernel[1]]
            y[:, :, i, j] = window.mean(axis=(2, 3))
    return y


class AveragePoolCeilTest(unittest.TestCase):
    def convert_and_run(self, model, shape):
        feeds = random_feeds({"x": shape}, offset=len(shape))
        converted = convert_model(model, {"x": shape}, ["y"])
        return feeds, converted, run(converted.net_def, converted.weights, feeds)["y"]

    def test_overhanging_windows_divide_by_the_kernel_size(self):
        cases = [
            ([1, 2, 3, 3], dict(kernel_shape=[2, 2], strides=[2, 2])),
            ([2, 3, 6, 7], dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 0, 1])),
            ([1, 2, 8, 10], dict(kernel_shape=[2, 3], strides=[2, 3], pads=[1, 1, 1, 0])),
        ]
        for shape, attrs in cases:
            with self.subTest(**{k: str(v) for k, v in attrs.items()}):
                model = make_model([helper.make_node(
                    "AveragePool", ["x"], ["y"], count_include_pad=1, ceil_mode=1, **attrs)],
                    {"x": shape}, {"y": None}, opset=19)
                feeds, converted, got = self.convert_and_run(model, shape)
                self.assertEqual(converted.net_def.op[0].type, "Pooling")
                want = numpy_average(feeds["x"].astype(np.float64), attrs["kernel_shape"],
                                     attrs["strides"], attrs.get("pads", [0, 0, 0, 0]))
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
                onnx_ref = ReferenceEvaluator(model).run(None, feeds)[0]
                np.testing.assert_allclose(got, onnx_ref, rtol=1e-5, atol=1e-6)

    def test_3d_overhang_matches_the_onnx_reference(self):
        attrs = dict(kernel_shape=[3, 2, 3], strides=[2, 2, 3], dilations=[1, 2, 1],
                     pads=[1, 0, 0, 0, 1, 1], count_include_pad=1, ceil_mode=1)
        model = make_model([helper.make_node("AveragePool", ["x"], ["y"], **attrs)],
                           {"x": [1, 2, 6, 7, 8]}, {"y": None}, opset=19)
        feeds, _, got = self.convert_and_run(model, [1, 2, 6, 7, 8])
        onnx_ref = ReferenceEvaluator(model).run(None, feeds)[0]
        np.testing.assert_allclose(got, onnx_ref, rtol=1e-5, atol=1e-6)

    def test_onnxruntime_agrees(self):
        # With and without overhang, and (stride 3) an overhang of 2, where
        # ONNX's reference would also move the windows and ONNX Runtime, as
        # the engine, keeps them.
        for shape, attrs in (([1, 2, 7, 7], dict(kernel_shape=[3, 3], strides=[2, 2])),
                             ([2, 3, 6, 6], dict(kernel_shape=[3, 3], strides=[2, 2],
                                                 pads=[1, 1, 1, 1])),
                             ([2, 3, 6, 7], dict(kernel_shape=[3, 2], strides=[2, 2],
                                                 pads=[1, 0, 0, 1])),
                             ([1, 2, 7, 7], dict(kernel_shape=[3, 3], strides=[3, 3]))):
            with self.subTest(**{k: str(v) for k, v in attrs.items()}):
                model = make_model([helper.make_node(
                    "AveragePool", ["x"], ["y"], count_include_pad=1, ceil_mode=1, **attrs)],
                    {"x": shape}, {"y": None}, opset=19)
                converted = check_against_ort(self, model, {"x": shape})
                args = {a.name: a.i for a in converted.net_def.op[0].arg}
                self.assertEqual(args.get("count_ceil_overhang"), 1)


if __name__ == "__main__":
    unittest.main()
