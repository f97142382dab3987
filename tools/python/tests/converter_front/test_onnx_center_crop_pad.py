"""ONNX CenterCropPad (a Slice and a Pad) against onnxruntime: crops, pads,
both at once, odd differences, chosen axes, and a target shape computed at
run time that the model declares."""
from __future__ import annotations

import unittest

import numpy as np
from onnx import TensorProto, helper

from tests.converter_front.helpers import check_against_ort, rng

SHAPE = [4, 7, 5]


def model(target: list[int], axes=None, computed: bool = False, out_shape=None):
    node = helper.make_node("CenterCropPad", ["x", "shape"], ["y"],
                            **({"axes": axes} if axes is not None else {}))
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)]
    inits = []
    if computed:
        inputs.append(helper.make_tensor_value_info("shape", TensorProto.INT64, [len(target)]))
    else:
        inits.append(helper.make_tensor("shape", TensorProto.INT64, [len(target)], target))
    graph = helper.make_graph([node], "g", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
                              inits)
    result = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    result.ir_version = 8
    return result


class CenterCropPadTest(unittest.TestCase):
    def test_crop_and_pad(self):
        cases = [([2, 3, 5], None), ([6, 10, 5], None), ([3, 9, 2], None), ([9, 2], [1, 2]),
                 ([1], [-1]), ([4, 7, 5], None)]
        for index, (target, axes) in enumerate(cases):
            with self.subTest(target=target, axes=axes):
                x = {"x": rng(index).standard_normal(SHAPE).astype(np.float32)}
                check_against_ort(self, model(target, axes), {"x": SHAPE}, feeds=x)

    def test_target_computed_at_run_time(self):
        target = [3, 9, 2]
        x = rng(9).standard_normal(SHAPE).astype(np.float32)
        feeds = {"x": x, "shape": np.array(target, np.int64)}
        check_against_ort(self, model(target, computed=True, out_shape=target),
                          {"x": SHAPE, "shape": [3]}, feeds=feeds)


if __name__ == "__main__":
    unittest.main()
