"""One-node ONNX models of the element-wise, shape, layout, resize and
reduction ops, across opsets: converted, run by the numpy runner and
compared with ONNX Runtime."""
import unittest

import numpy as np
from onnx import helper

from tests.converter_front.helpers import (check_against_ort, initializer, make_model,
                                           random_feeds, rng)

I64 = np.int64


def _const(name, values, dtype=I64):
    return initializer(name, np.array(values, dtype=dtype))


class ShapeOpsTest(unittest.TestCase):
    def _run(self, node, x_shape, opset=13, inits=(), extra_inputs=None, feeds=None):
        inputs = {"x": x_shape}
        inputs.update(extra_inputs or {})
        outputs = {name: None for name in node.output if name}
        model = make_model([node], inputs, outputs, inits, opset)
        return check_against_ort(self, model, inputs, feeds=feeds)

    def test_eltwise(self):
        r = rng(10)
        per_channel = initializer("c", r.standard_normal((3, 1, 1)).astype(np.float32))
        scalar = initializer("c", np.array(1.5, np.float32))
        for op_type in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
            for const in (per_channel, scalar):
                with self.subTest(op=op_type, const=list(const.dims)):
                    self._run(helper.make_node(op_type, ["x", "c"], ["y"]), [2, 3, 4, 4],
                              inits=[const])
            with self.subTest(op=op_type, operands="two tensors broadcast"):
                self._run(helper.make_node(op_type, ["x", "z"], ["y"]), [2, 3, 4, 4],
                          extra_inputs={"z": [3, 1, 4]})
        with self.subTest(op="Sub scalar first"):
            self._run(helper.make_node("Sub", ["c", "x"], ["y"]), [2, 3], inits=[scalar])
        for op_type in ("Neg", "Abs"):
            self._run(helper.make_node(op_type, ["x"], ["y"]), [2, 3, 4])
        feeds = {"x": np.abs(random_feeds({"x": [2, 3]})["x"]) + 0.1}
        self._run(helper.make_node("Pow", ["x", "c"], ["y"]), [2, 3], inits=[scalar], feeds=feeds)
        self._run(helper.make_node("Sum", ["x", "x", "x"], ["y"]), [2, 3], opset=8)

    def test_reshape_family(self):
        self._run(helper.make_node("Reshape", ["x", "s"], ["y"]), [2, 3, 4],
                  inits=[_const("s", [0, -1])])
        self._run(helper.make_node("Flatten", ["x"], ["y"], axis=2), [2, 3, 4, 5])
        self._run(helper.make_node("Flatten", ["x"], ["y"], axis=0), [2, 3], opset=9)
        self._run(helper.make_node("Squeeze", ["x"], ["y"], axes=[1, 3]), [2, 1, 4, 1], opset=11)
        self._run(helper.make_node("Squeeze", ["x", "a"], ["y"]), [2, 1, 4, 1],
                  inits=[_const("a", [-1])])
        self._run(helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0, 3]), [2, 3], opset=11)
        self._run(helper.make_node("Unsqueeze", ["x", "a"], ["y"]), [2, 3],
                  inits=[_const("a", [1, -1])])
        self._run(helper.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1]), [1, 2, 3, 4])
        self._run(helper.make_node("Transpose", ["x"], ["y"]), [2, 3, 4])

    def test_concat_split_slice(self):
        self._run(helper.make_node("Concat", ["x", "z"], ["y"], axis=-1), [2, 3, 4],
                  extra_inputs={"z": [2, 3, 2]})
        self._run(helper.make_node("Split", ["x"], ["a", "b"], axis=1, split=[1, 2]),
                  [2, 3, 4], opset=11)
        self._run(helper.make_node("Split", ["x", "s"], ["a", "b"], axis=2), [2, 3, 4],
                  inits=[_const("s", [3, 1])])
        self._run(helper.make_node("Split", ["x"], ["a", "b"], axis=2), [2, 3, 4])
        self._run(helper.make_node("Split", ["x"], ["a", "b", "c"], axis=2, num_outputs=3),
                  [2, 3, 7], opset=18)
        self._run(helper.make_node("Slice", ["x"], ["y"], starts=[1, 0], ends=[3, -1],
                                   axes=[1, 2]), [2, 4, 5], opset=9)
        self._run(helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"]), [2, 4, 6],
                  inits=[_const("s", [-1, 1]), _const("e", [-9999, 2 ** 62]),
                         _const("a", [1, 2]), _const("t", [-2, 2])])
        self._run(helper.make_node("Slice", ["x", "s", "e"], ["y"]), [4, 6],
                  inits=[_const("s", [1]), _const("e", [3])], opset=10)

    def test_pad(self):
        self._run(helper.make_node("Pad", ["x"], ["y"], pads=[0, 0, 1, 2, 0, 0, 3, 0],
                                   value=0.5), [1, 2, 3, 4], opset=7)
        for mode in ("constant", "reflect", "edge"):
            with self.subTest(mode=mode):
                self._run(helper.make_node("Pad", ["x", "p"], ["y"], mode=mode), [1, 2, 4, 5],
                          inits=[_const("p", [0, 0, 1, 2, 0, 0, 2, 1])])
        self._run(helper.make_node("Pad", ["x", "p", "v", "a"], ["y"]), [1, 2, 4, 5],
                  inits=[_const("p", [1, 2, 0, 3]), _const("v", 2.0, np.float32),
                         _const("a", [2, 3])], opset=18)

    def test_softmax_axis_semantics(self):
        for op_type in ("Softmax", "LogSoftmax"):
            for opset, axis in ((11, 1), (11, -1), (11, 2), (13, 1), (13, -1)):
                with self.subTest(op=op_type, opset=opset, axis=axis):
                    self._run(helper.make_node(op_type, ["x"], ["y"], axis=axis), [2, 3, 4, 5],
                              opset=opset)

    def test_resize(self):
        scales = _const("sc", [1, 1, 2, 2], np.float32)
        odd_scales = _const("sc", [1, 1, 1.5, 0.7], np.float32)
        sizes = _const("sz", [1, 2, 7, 3])
        cases = [
            ("Upsample", 7, ["x"], [], dict(scales=[1.0, 1.0, 2.0, 2.0], mode="nearest")),
            ("Upsample", 9, ["x", "sc"], [scales], dict(mode="linear")),
            ("Resize", 10, ["x", "sc"], [scales], dict(mode="nearest")),
            ("Resize", 11, ["x", "roi", "sc"], [odd_scales, _const("roi", [], np.float32)],
             dict(mode="linear")),
            ("Resize", 13, ["x", "", "sc"], [odd_scales], dict(mode="nearest")),
            ("Resize", 13, ["x", "", "", "sz"], [sizes],
             dict(mode="linear", coordinate_transformation_mode="align_corners")),
            ("Resize", 13, ["x", "", "", "sz"], [sizes],
             dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel")),
            ("Resize", 13, ["x", "", "", "sz"], [sizes],
             dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                  nearest_mode="floor")),
            ("Resize", 19, ["x", "", "sc"], [odd_scales],
             dict(mode="nearest", nearest_mode="round_prefer_ceil")),
        ]
        for op_type, opset, inputs, inits, attrs in cases:
            with self.subTest(op=op_type, opset=opset, **{k: str(v) for k, v in attrs.items()}):
                self._run(helper.make_node(op_type, inputs, ["y"], **attrs), [1, 2, 5, 4],
                          opset=opset, inits=inits)

    def test_depth_space_and_lrn(self):
        for mode in ("DCR", "CRD"):
            self._run(helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2, mode=mode),
                      [1, 8, 3, 2])
        self._run(helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=2), [1, 3, 4, 6])

    def test_reductions_and_argmax(self):
        for op_type in ("ReduceMean", "ReduceMax", "ReduceMin", "ReduceSum"):
            for keepdims in (0, 1):
                with self.subTest(op=op_type, keepdims=keepdims):
                    self._run(helper.make_node(op_type, ["x"], ["y"], axes=[2, 3],
                                               keepdims=keepdims), [2, 3, 4, 5], opset=11)
        self._run(helper.make_node("ReduceMean", ["x", "a"], ["y"]), [2, 3, 4, 5], opset=18,
                  inits=[_const("a", [-1])])
        self._run(helper.make_node("ReduceSum", ["x", "a"], ["y"], keepdims=0), [2, 3, 4],
                  opset=13, inits=[_const("a", [1])])
        model = make_model([helper.make_node("ArgMax", ["x"], ["y"], axis=1, keepdims=0)],
                           {"x": [2, 5, 3]}, {"y": None}, [], 13)
        model.graph.output[0].type.tensor_type.elem_type = 7
        # ArgMax gives int64 in ONNX and int32 in MACE: compare values.
        from tests.converter_front.helpers import convert_model, ort_run
        from mace_converter.numpy_runner import run
        feeds = random_feeds({"x": [2, 5, 3]})
        converted = convert_model(model, {"x": [2, 5, 3]}, ["y"])
        np.testing.assert_array_equal(run(converted.net_def, converted.weights, feeds)["y"],
                                      ort_run(model, feeds)[0])

    def test_identity_dropout_cast_gather(self):
        chain = [helper.make_node("Identity", ["x"], ["a"]),
                 helper.make_node("Dropout", ["a"], ["b"]),
                 helper.make_node("Cast", ["b"], ["c"], to=1),
                 helper.make_node("Gather", ["c", "i"], ["y"], axis=1)]
        model = make_model(chain, {"x": [2, 3, 4]}, {"y": None}, [_const("i", 1)], 13)
        converted = check_against_ort(self, model, {"x": [2, 3, 4]})
        self.assertEqual([op.type for op in converted.net_def.op], ["Slice", "Reshape"])


if __name__ == "__main__":
    unittest.main()
