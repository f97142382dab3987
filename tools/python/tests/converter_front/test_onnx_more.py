"""One-node (and few-node) ONNX models of the comparison, logic, indexing,
normalization and axis ops: converted, run by the numpy runner and compared
with ONNX Runtime. Bools and integers come back as float values."""
import unittest

import numpy as np
from onnx import TensorProto, helper

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import (convert_model, initializer, make_model, ort_run,
                                           random_feeds)

I64 = np.int64


def _const(name, values, dtype=I64):
    return initializer(name, np.array(values, dtype=dtype))


class MoreOpsTest(unittest.TestCase):
    def _run(self, nodes, inputs, outputs=("y",), inits=(), opset=13, feeds=None,
             out_types=None):
        model = make_model(nodes, inputs, {name: None for name in outputs}, inits, opset)
        for info, elem in zip(model.graph.output, out_types or []):
            info.type.tensor_type.elem_type = elem
        feeds = feeds if feeds is not None else random_feeds(inputs)
        expected = ort_run(model, feeds)
        converted = convert_model(model, inputs, list(outputs))
        got = run(converted.net_def, converted.weights, feeds)
        for name, want in zip(outputs, expected):
            np.testing.assert_allclose(got[name].astype(np.float64).reshape(want.shape),
                                       want.astype(np.float64), rtol=1e-4, atol=1e-5,
                                       err_msg=name)
        return converted

    def test_comparisons_logic_where(self):
        for op_type in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"):
            with self.subTest(op=op_type):
                feeds = {"x": np.round(random_feeds({"x": [2, 3, 4]})["x"]),
                         "z": np.round(random_feeds({"z": [3, 1]}, 1)["z"])}
                self._run([helper.make_node(op_type, ["x", "z"], ["y"])],
                          {"x": [2, 3, 4], "z": [3, 1]}, feeds=feeds,
                          out_types=[TensorProto.BOOL])
        for op_type in ("And", "Or", "Xor"):
            with self.subTest(op=op_type):
                nodes = [helper.make_node("Greater", ["x", "zero"], ["a"]),
                         helper.make_node("Less", ["z", "zero"], ["b"]),
                         helper.make_node(op_type, ["a", "b"], ["c"]),
                         helper.make_node("Not", ["c"], ["d"]),
                         helper.make_node("Where", ["d", "x", "z"], ["y"])]
                self._run(nodes, {"x": [2, 5], "z": [5]},
                          inits=[_const("zero", 0.0, np.float32)])

    def test_mod_and_argmin(self):
        feeds = {"x": random_feeds({"x": [3, 4]})["x"] * 10}
        self._run([helper.make_node("Mod", ["x", "m"], ["y"], fmod=1)], {"x": [3, 4]},
                  inits=[_const("m", [1.5, -2.0, 3.0, 0.7], np.float32)], feeds=feeds)
        for keep in (0, 1):
            self._run([helper.make_node("ArgMin", ["x"], ["y"], axis=1, keepdims=keep)],
                      {"x": [3, 4, 5]}, out_types=[TensorProto.INT64])

    def test_normalizations(self):
        r = np.random.default_rng(7)
        self._run([helper.make_node("LayerNormalization", ["x", "s", "b"], ["y", "m", "v"],
                                    axis=-2, epsilon=1e-3)], {"x": [2, 3, 4, 5]},
                  outputs=("y", "m", "v"), opset=17,
                  inits=[initializer("s", r.standard_normal((4, 5)).astype(np.float32)),
                         initializer("b", r.standard_normal((4, 5)).astype(np.float32))])
        self._run([helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"])],
                  {"x": [2, 3, 4, 5]},
                  inits=[initializer("s", r.standard_normal(3).astype(np.float32)),
                         initializer("b", r.standard_normal(3).astype(np.float32))])
        self._run([helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                                    num_groups=2)], {"x": [2, 4, 3, 3]}, opset=18,
                  inits=[initializer("s", r.standard_normal(2).astype(np.float32)),
                         initializer("b", r.standard_normal(2).astype(np.float32))])

    def test_indexing(self):
        nodes = [helper.make_node("ArgMax", ["x"], ["i"], axis=1, keepdims=0),
                 helper.make_node("Gather", ["t", "i"], ["y"], axis=0)]
        self._run(nodes, {"x": [4, 6], "t": [6, 3]})
        self._run([helper.make_node("Gather", ["x", "i"], ["y"], axis=1)], {"x": [3, 5]},
                  inits=[_const("i", [[4, 0], [-1, 2]])])
        self._run([helper.make_node("GatherElements", ["x", "i"], ["y"], axis=0)],
                  {"x": [3, 2]}, inits=[_const("i", [[2, 0], [1, -3]])])
        self._run([helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=1)],
                  {"x": [2, 3, 4]}, inits=[_const("i", [[2], [0]])])
        self._run([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1,
                                    reduction="add")], {"x": [2, 4], "u": [2, 2]},
                  opset=16, inits=[_const("i", [[3, 3], [0, 1]])])
        self._run([helper.make_node("ScatterND", ["x", "i", "u"], ["y"])],
                  {"x": [4, 3], "u": [2, 3]}, inits=[_const("i", [[3], [1]])])

    def test_axis_ops(self):
        self._run([helper.make_node("Trilu", ["x", "k"], ["y"], upper=0)], {"x": [2, 3, 4]},
                  opset=14, inits=[_const("k", 1)])
        self._run([helper.make_node("CumSum", ["x", "a"], ["y"], reverse=1, exclusive=1)],
                  {"x": [3, 4]}, inits=[_const("a", -1)])
        self._run([helper.make_node("Tile", ["x", "r"], ["y"])], {"x": [2, 3]},
                  inits=[_const("r", [2, 3])])
        self._run([helper.make_node("Expand", ["x", "s"], ["y"])], {"x": [3, 1]},
                  inits=[_const("s", [2, 3, 4])])
        self._run([helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=0)],
                  {"x": [3, 7]}, outputs=("v", "i"), opset=11, inits=[_const("k", [3])],
                  out_types=[TensorProto.FLOAT, TensorProto.INT64])
        self._run([helper.make_node("Einsum", ["x", "z"], ["y"], equation="bij,bkj->bik")],
                  {"x": [2, 3, 4], "z": [2, 5, 4]}, opset=12)

    def test_reduce_log_sum_exp_over_an_empty_axis(self):
        # exp(x - max) of x [2, 0, 4] against the max [2, 1, 4] is [2, 0, 4]
        # (1 against 0 broadcasts to 0); the sums over no elements are 0, so
        # every result is log(0) + max = -inf.
        converted = self._run([helper.make_node("ReduceLogSumExp", ["x"], ["y"], axes=[1])],
                              {"x": [2, 0, 4]})
        planned = {name: list(shape.dims) for op in converted.net_def.op
                   for name, shape in zip(op.output, op.output_shape)}
        self.assertIn([2, 0, 4], planned.values())

    def test_einsum_diagonals_and_ellipsis(self):
        cases = [("...ii->...i", {"x": [2, 3, 4, 4]}), ("ii->i", {"x": [3, 3]}),
                 ("ii", {"x": [5, 5]}), ("iji->ij", {"x": [3, 2, 3]}),
                 ("...ij,...jk", {"x": [2, 3, 4], "z": [2, 4, 5]}),
                 ("bii,bij->bj", {"x": [2, 3, 3], "z": [2, 3, 4]}),
                 ("...i->...", {"x": [2, 3, 4]})]
        for equation, inputs in cases:
            with self.subTest(equation=equation):
                self._run([helper.make_node("Einsum", list(inputs), ["y"],
                                            equation=equation)], inputs, opset=12)

    def test_casts_and_constant_outputs(self):
        feeds = {"x": random_feeds({"x": [2, 5]})["x"] * 4}
        for to in (TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL):
            self._run([helper.make_node("Cast", ["x"], ["y"], to=to)], {"x": [2, 5]},
                      feeds=feeds, out_types=[to])
        converted = self._run([helper.make_node("Shape", ["x"], ["s"]),
                               helper.make_node("Relu", ["x"], ["y"])], {"x": [2, 5]},
                              outputs=("s", "y"), out_types=[TensorProto.INT64])
        self.assertIn("Identity", [op.type for op in converted.net_def.op])

    def test_casts_round_to_the_target_type(self):
        """Float16, bfloat16 and float8 round to nearest even (float8 saturating
        or not); the round trip back to float shows the value the type holds."""
        x = (np.random.default_rng(3).standard_normal((4, 6)) * 300).astype(np.float32)
        x.ravel()[:6] = [np.inf, -np.inf, 464.0, 470.0, 0.3, -0.0]
        for to in (TensorProto.FLOAT16, TensorProto.FLOAT8E4M3FN,
                   TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2,
                   TensorProto.FLOAT8E5M2FNUZ, TensorProto.INT8, TensorProto.UINT8,
                   TensorProto.INT16):
            for saturate in ((1, 0) if to >= TensorProto.FLOAT8E4M3FN else (1,)):
                with self.subTest(to=to, saturate=saturate):
                    extra = {"saturate": saturate} if to >= TensorProto.FLOAT8E4M3FN else {}
                    nodes = [helper.make_node("Cast", ["x"], ["c"], to=to, **extra),
                             helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT)]
                    converted = self._run(nodes, {"x": [4, 6]}, feeds={"x": x}, opset=21)
                    self.assertIn("Cast", [op.type for op in converted.net_def.op])

    def test_cast_to_bfloat16_truncates(self):
        """As ONNX's reference Cast: the high 16 bits of the float32."""
        x = np.array([[1.01171875, -1.0078125, 3.14159, np.inf, 0.4803366]], np.float32)
        nodes = [helper.make_node("Cast", ["x"], ["c"], to=TensorProto.BFLOAT16),
                 helper.make_node("Cast", ["c"], ["y"], to=TensorProto.FLOAT)]
        model = make_model(nodes, {"x": [1, 5]}, {"y": None}, [], 13)
        converted = convert_model(model, {"x": [1, 5]}, ["y"])
        got = run(converted.net_def, converted.weights, {"x": x})["y"]
        want = (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
        np.testing.assert_array_equal(got.reshape(x.shape), want)
        self.assertEqual(want[0, 0], 1.0078125)

    def test_cast_to_int4_and_narrow_float_inputs(self):
        # ONNX Runtime has no float -> int4 Cast here: the values are checked
        # against their definition (round half to even, then clamp).
        x = np.array([[-9.0, -8.5, 2.5, 3.5, 7.4, 20.0]], np.float32)
        for to, want in ((TensorProto.INT4, [-8, -8, 2, 4, 7, 7]),
                         (TensorProto.UINT4, [0, 0, 2, 4, 7, 15])):
            model = make_model([helper.make_node("Cast", ["x"], ["y"], to=to)], {"x": [1, 6]},
                               {"y": None}, [], 21)
            model.graph.output[0].type.tensor_type.elem_type = to
            converted = convert_model(model, {"x": [1, 6]}, ["y"])
            got = run(converted.net_def, converted.weights, {"x": x})["y"]
            np.testing.assert_array_equal(got.reshape(-1), want)
        # A bfloat16 or float8 graph input is given as the float values it holds.
        for elem in (TensorProto.BFLOAT16, TensorProto.FLOAT8E4M3FN):
            model = make_model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)],
                               {"x": [2, 3]}, {"y": None}, [], 21)
            model.graph.input[0].type.tensor_type.elem_type = elem
            converted = convert_model(model, {"x": [2, 3]}, ["y"])
            self.assertEqual([op.type for op in converted.net_def.op], ["Identity"])

    def test_scalar_and_empty_inputs(self):
        """Rank-0 inputs, and inputs and outputs with a zero dimension."""
        feeds = {"x": np.array(1.5, np.float32), "z": random_feeds({"z": [3, 4]})["z"]}
        converted = self._run([helper.make_node("Add", ["x", "z"], ["y"])],
                              {"x": [], "z": [3, 4]}, feeds=feeds)
        self.assertEqual(list(converted.inputs[0].shape), [])
        empty = {"x": np.zeros((3, 0, 5), np.float32)}
        converted = self._run([helper.make_node("Trilu", ["x"], ["y"], upper=0)],
                              {"x": [3, 0, 5]}, feeds=empty, opset=14)
        self.assertEqual(list(converted.outputs[0].shape), [3, 0, 5])
        self._run([helper.make_node("Relu", ["x"], ["r"]),
                   helper.make_node("Concat", ["r", "z"], ["y"], axis=1)],
                  {"x": [3, 0], "z": [3, 4]},
                  feeds={"x": np.zeros((3, 0), np.float32), "z": feeds["z"]})
        model = make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": [2, 1]},
                           {"y": None}, [], 13)
        with self.assertRaisesRegex(ConversionError, "a dimension cannot be negative"):
            convert_model(model, {"x": [2, -1]}, ["y"])

    def test_cast_to_string_is_refused(self):
        model = make_model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.STRING)],
                           {"x": [2]}, {"y": None}, [], 13)
        with self.assertRaisesRegex(ConversionError, "Cast to string is not supported"):
            convert_model(model, {"x": [2]}, ["y"])

    def test_compositions(self):
        feeds = {"x": np.array([[1.0, np.nan, -np.inf, 3.0, np.inf, 0.2]], np.float32)}
        self._run([helper.make_node("IsNaN", ["x"], ["y"])], {"x": [1, 6]}, feeds=feeds,
                  out_types=[TensorProto.BOOL])
        for positive in (0, 1):
            self._run([helper.make_node("IsInf", ["x"], ["y"], detect_positive=positive)],
                      {"x": [1, 6]}, feeds=feeds, out_types=[TensorProto.BOOL], opset=10)
        self._run([helper.make_node("Shrink", ["x"], ["y"], lambd=0.3, bias=0.1)],
                  {"x": [3, 4]}, opset=9)
        ties = {"x": np.round(random_feeds({"x": [3, 4, 5]})["x"])}
        for opset, axis in ((13, 1), (11, 1), (13, -1)):
            self._run([helper.make_node("Hardmax", ["x"], ["y"], axis=axis)], {"x": [3, 4, 5]},
                      feeds=ties, opset=opset)
        for p in (1, 2):
            self._run([helper.make_node("LpNormalization", ["x"], ["y"], p=p, axis=1)],
                      {"x": [3, 4]})
        self._run([helper.make_node("MeanVarianceNormalization", ["x"], ["y"])],
                  {"x": [2, 3, 4, 5]})
        self._run([helper.make_node("Mean", ["x", "z", "x"], ["y"])], {"x": [2, 3], "z": [3]})

    def test_clear_refusals(self):
        from mace_converter.api import ConversionError
        cases = [
            (helper.make_node("Tile", ["x", "r"], ["y"]), {"x": [2], "r": [1]}, [],
             "repeats is computed at run time, so the shape of output 'y' depends on "
             "run-time values; the model must declare that shape"),
            (helper.make_node("Einsum", ["x"], ["y"], equation="iii->i"), {"x": [3, 3, 3]},
             [], "a subscript appears more than twice"),
            (helper.make_node("ScatterND", ["x", "i", "x"], ["y"], reduction="avg"),
             {"x": [2]}, [_const("i", [[0], [1]])], "reduction 'avg' is not supported"),
        ]
        for node, inputs, inits, message in cases:
            with self.subTest(op=node.op_type):
                model = make_model([node], inputs, {"y": None}, inits, 13 if
                                   node.op_type != "ScatterND" else 18)
                if node.op_type == "Tile":
                    model.graph.input[1].type.tensor_type.elem_type = TensorProto.INT64
                with self.assertRaises(ConversionError) as caught:
                    convert_model(model, inputs, ["y"])
                self.assertIn(message, str(caught.exception))
                self.assertIn(f"ONNX {node.op_type} node", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
