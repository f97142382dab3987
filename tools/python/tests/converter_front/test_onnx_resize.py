"""ONNX Resize in the modes the H x W ops do not cover (cubic, antialias,
tf_crop_and_resize, half_pixel_symmetric, axes, keep_aspect_ratio_policy,
ranks other than 4): converted to the general Resize op, run by the numpy
runner and compared with ONNX's reference implementation."""
import unittest

import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, initializer, make_model, rng


def _floats(name, values):
    return initializer(name, np.array(values, np.float32))


def _ints(name, values):
    return initializer(name, np.array(values, np.int64))


class GeneralResizeTest(unittest.TestCase):
    def _check(self, attrs, shape, inits, inputs=("x", "", "sc"), extra=None, out_shape=None,
               opset=19, op_type="Resize"):
        node = helper.make_node("Resize", list(inputs), ["y"], **attrs)
        graph_inputs = {"x": shape}
        graph_inputs.update({name: list(np.shape(v)) for name, v in (extra or {}).items()})
        model = make_model([node], graph_inputs, {"y": out_shape}, inits, opset)
        feeds = {"x": rng(3).uniform(-2, 2, size=shape).astype(np.float32)}
        for name, value in (extra or {}).items():
            feeds[name] = value
        converted = convert_model(model, {n: list(np.shape(v)) for n, v in feeds.items()}, ["y"])
        types = [op.type for op in converted.net_def.op]
        self.assertEqual(types, [op_type])
        got = run(converted.net_def, converted.weights, feeds)["y"]
        want = ReferenceEvaluator(model).run(None, feeds)[0]
        self.assertEqual(got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        return converted

    def test_modes_the_plane_ops_lack(self):
        scales = _floats("sc", [1, 1, 0.6, 1.8])
        cases = [
            dict(mode="cubic"),
            dict(mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1),
            dict(mode="cubic", coordinate_transformation_mode="asymmetric"),
            dict(mode="linear", antialias=1),
            dict(mode="cubic", antialias=1),
            dict(mode="linear", coordinate_transformation_mode="half_pixel_symmetric"),
            dict(mode="linear", coordinate_transformation_mode="align_corners"),
        ]
        for attrs in cases:
            with self.subTest(**{k: str(v) for k, v in attrs.items()}):
                self._check(attrs, [1, 2, 5, 7], [scales])

    def test_axes_policy_crop_and_rank(self):
        with self.subTest("axes [3, 2]"):
            self._check(dict(mode="nearest", axes=[3, 2]), [1, 2, 4, 5],
                        [_floats("sc", [2.5, 0.5])])
        for policy in ("not_larger", "not_smaller"):
            with self.subTest(policy):
                self._check(dict(mode="nearest", keep_aspect_ratio_policy=policy, axes=[2, 3]),
                            [1, 1, 4, 6], [_ints("sz", [7, 8])], inputs=("x", "", "", "sz"))
        with self.subTest("tf_crop_and_resize"):
            self._check(dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
                             extrapolation_value=5.0),
                        [1, 1, 4, 5], [_floats("roi", [0, 0, 0.2, -0.4, 1, 1, 0.9, 1.3]),
                                       _ints("sz", [1, 1, 3, 4])], inputs=("x", "roi", "", "sz"))
        with self.subTest("rank 3"):
            self._check(dict(mode="linear"), [2, 3, 5], [_floats("sc", [1, 2, 0.5])])

    def test_values_read_at_run_time(self):
        scales = np.array([1, 1, 0.75, 1.5], np.float32)
        converted = self._check(dict(mode="cubic"), [1, 1, 4, 4], [], extra={"sc": scales},
                                out_shape=[1, 1, 3, 6])
        self.assertEqual(list(converted.net_def.op[0].input)[2:], ["sc"])

    def test_plane_modes_keep_their_ops(self):
        node = helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear")
        model = make_model([node], {"x": [1, 2, 4, 4]}, {"y": None},
                           [_floats("sc", [1, 1, 2, 2])], 19)
        converted = convert_model(model, {"x": [1, 2, 4, 4]}, ["y"])
        self.assertEqual([op.type for op in converted.net_def.op], ["ResizeBilinear"])

    def test_crop_without_roi_is_refused(self):
        node = helper.make_node("Resize", ["x", "", "", "sz"], ["y"],
                                coordinate_transformation_mode="tf_crop_and_resize")
        model = make_model([node], {"x": [1, 1, 4, 4]}, {"y": None},
                           [_ints("sz", [1, 1, 3, 3])], 19)
        with self.assertRaisesRegex(ConversionError, "tf_crop_and_resize needs roi"):
            convert_model(model, {"x": [1, 1, 4, 4]}, ["y"])


if __name__ == "__main__":
    unittest.main()
