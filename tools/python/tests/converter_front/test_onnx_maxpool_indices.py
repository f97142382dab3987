"""MaxPool's Indices output (1-D, 2-D and 3-D, both storage orders),
compared with ONNX Runtime through the converter's numpy runner and the
engine (mace_run)."""
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

from tests.converter_front.helpers import convert_model, ort_run, random_feeds, run
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN


def _model(shape, attrs) -> onnx.ModelProto:
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], **attrs)
    graph = helper.make_graph(
        [node], "test", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("i", TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    model.ir_version = 8
    return model


class MaxPoolIndicesTest(unittest.TestCase):
    def check(self, shape, attrs, feeds=None):
        model = _model(shape, attrs)
        feeds = feeds or random_feeds({"x": shape}, offset=len(str(attrs)))
        want_y, want_i = ort_run(model, feeds)
        converted = convert_model(model, {"x": shape}, ["y", "i"])
        got = run(converted.net_def, converted.weights, feeds)
        np.testing.assert_array_equal(got["y"], want_y)
        self.assertEqual(list(got["i"].shape), list(want_i.shape))
        np.testing.assert_array_equal(got["i"].astype(np.int64), want_i)
        return converted

    def test_2d_against_onnxruntime(self):
        cases = [
            dict(kernel_shape=[2, 2]),
            dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
            dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 0, 1], storage_order=1),
            dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1),
            dict(kernel_shape=[2, 2], strides=[3, 2], ceil_mode=1, storage_order=1),
            dict(kernel_shape=[2, 2], dilations=[2, 1], pads=[1, 1, 1, 1]),
            dict(kernel_shape=[3, 3], auto_pad="SAME_UPPER", storage_order=1),
        ]
        for attrs in cases:
            with self.subTest(**{k: str(v) for k, v in attrs.items()}):
                converted = self.check([2, 3, 7, 6], attrs)
                self.assertEqual([op.type for op in converted.net_def.op], ["Pooling"])

    def test_ties_keep_the_first_maximum(self):
        x = np.round(random_feeds({"x": [1, 2, 6, 6]}, offset=5)["x"]).astype(np.float32)
        for order in (0, 1):
            with self.subTest(storage_order=order):
                self.check([1, 2, 6, 6], dict(kernel_shape=[3, 3], strides=[1, 2],
                                              storage_order=order), {"x": x})

    def test_1d_against_onnxruntime(self):
        for attrs in (dict(kernel_shape=[3]),
                      dict(kernel_shape=[3], strides=[2], pads=[1, 0], ceil_mode=1),
                      dict(kernel_shape=[2], dilations=[2], storage_order=1)):
            with self.subTest(**{k: str(v) for k, v in attrs.items()}):
                self.check([2, 3, 9], attrs)

    def test_engine_matches_onnxruntime(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
        for order in (0, 1):
            with self.subTest(storage_order=order):
                model = _model([2, 3, 7, 6], dict(kernel_shape=[3, 2], strides=[2, 1],
                                                  pads=[1, 0, 1, 1], ceil_mode=1,
                                                  storage_order=order))
                feeds = random_feeds({"x": [2, 3, 7, 6]}, offset=9)
                want_y, want_i = ort_run(model, feeds)
                converted = convert_model(model, {"x": [2, 3, 7, 6]}, ["y", "i"])
                got = run_converted(self, converted, feeds)
                np.testing.assert_array_equal(got["y"].reshape(want_y.shape), want_y)
                np.testing.assert_array_equal(got["i"].reshape(want_i.shape).astype(np.int64),
                                              want_i)

    def test_3d_against_onnxruntime(self):
        cases = [
            dict(kernel_shape=[2, 2, 2]),
            dict(kernel_shape=[3, 2, 3], strides=[2, 2, 2], pads=[1, 0, 1, 1, 1, 0]),
            dict(kernel_shape=[2, 3, 2], strides=[2, 1, 2], dilations=[2, 2, 1],
                 pads=[0, 1, 1, 1, 1, 0], storage_order=1),
            dict(kernel_shape=[3, 3, 2], strides=[2, 2, 2], ceil_mode=1),
            dict(kernel_shape=[2, 2, 3], strides=[2, 3, 2], ceil_mode=1, storage_order=1,
                 pads=[1, 1, 0, 0, 1, 1]),
            dict(kernel_shape=[3, 3, 3], auto_pad="SAME_UPPER", storage_order=1),
            dict(kernel_shape=[2, 3, 2], strides=[2, 2, 1], auto_pad="SAME_LOWER"),
        ]
        for attrs in cases:
            with self.subTest(**{k: str(v) for k, v in attrs.items()}):
                converted = self.check([2, 3, 5, 6, 7], attrs)
                self.assertEqual([op.type for op in converted.net_def.op], ["MaxPool3D"])

    def test_3d_ties_keep_the_first_maximum(self):
        shape = [1, 2, 5, 4, 5]
        x = np.round(random_feeds({"x": shape}, offset=7)["x"]).astype(np.float32)
        for order in (0, 1):
            with self.subTest(storage_order=order):
                self.check(shape, dict(kernel_shape=[2, 3, 2], strides=[1, 1, 2],
                                       storage_order=order), {"x": x})

    def test_3d_engine_matches_onnxruntime(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
        shape = [2, 3, 5, 6, 7]
        cases = [dict(kernel_shape=[3, 2, 3], strides=[2, 2, 2], pads=[1, 0, 1, 1, 1, 0],
                      dilations=[1, 2, 1], ceil_mode=1),
                 dict(kernel_shape=[2, 3, 2], strides=[2, 1, 2], ceil_mode=1,
                      storage_order=1)]
        ties = np.round(random_feeds({"x": shape}, offset=3)["x"]).astype(np.float32)
        for attrs in cases:
            for name, feeds in (("random", random_feeds({"x": shape}, offset=11)),
                                ("ties", {"x": ties})):
                with self.subTest(feeds=name, **{k: str(v) for k, v in attrs.items()}):
                    model = _model(shape, attrs)
                    want_y, want_i = ort_run(model, feeds)
                    converted = convert_model(model, {"x": shape}, ["y", "i"])
                    got = run_converted(self, converted, feeds)
                    np.testing.assert_array_equal(got["y"].reshape(want_y.shape), want_y)
                    np.testing.assert_array_equal(
                        got["i"].reshape(want_i.shape).astype(np.int64), want_i)

if __name__ == "__main__":
    unittest.main()
