"""Weights and shape arguments that are graph inputs or computed by other
ops, not initializers: Conv and ConvTranspose filters and biases,
BatchNormalization's statistics, PRelu's slope, Clip's bounds, Reshape's
shape, Slice's bounds, Split's sizes, Reduce axes, Pad's pads, Resize's
scales and sizes, Squeeze/Unsqueeze axes, TopK's k, Tile's repeats and Expand's shape.
Each is converted into ops that read the operand at run time, run by the numpy runner and compared with ONNX Runtime; a constant
operand still folds as before."""
import unittest

import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run

from tests.converter_front.helpers import (check_against_ort, convert_model, initializer,
                                           make_model, ort_run, rng)


def _feeds(shapes, seed, low=-1.0, high=1.0):
    generator = rng(seed)
    return {name: generator.uniform(low, high, size=shape).astype(np.float32)
            for name, shape in shapes.items()}


def _types(converted):
    return [op.type for op in converted.net_def.op]


class ComputedWeightsTest(unittest.TestCase):
    def test_conv_filter_and_bias_as_inputs(self):
        cases = [
            ({"x": [1, 3, 7, 7], "w": [4, 3, 3, 3], "b": [4]}, dict(pads=[1, 1, 1, 1])),
            ({"x": [2, 4, 8, 6], "w": [6, 2, 3, 2], "b": [6]}, dict(group=2, strides=[2, 1])),
            ({"x": [1, 4, 9, 9], "w": [4, 1, 3, 3]}, dict(group=4, dilations=[2, 2])),
            ({"x": [1, 3, 6, 6], "w": [2, 3, 4, 4]}, dict(auto_pad="SAME_UPPER", strides=[2, 2])),
            ({"x": [1, 3, 11], "w": [5, 3, 3], "b": [5]}, dict(strides=[2], pads=[1, 0])),
        ]
        for shapes, attrs in cases:
            with self.subTest(shapes=str(shapes), **{k: str(v) for k, v in attrs.items()}):
                model = make_model([helper.make_node("Conv", list(shapes), ["y"], **attrs)],
                                   shapes, {"y": None})
                converted = check_against_ort(self, model, shapes, feeds=_feeds(shapes, 1))
                self.assertIn("Conv2D", _types(converted))
                self.assertNotIn("DepthwiseConv2d", _types(converted))

    def test_conv_filter_computed_from_an_input(self):
        """A filter made by other ops (here w * 2) is a computed tensor too;
        a constant bias beside it stays a weight."""
        shapes = {"x": [1, 2, 5, 5], "w": [3, 2, 3, 3]}
        nodes = [helper.make_node("Mul", ["w", "two"], ["w2"]),
                 helper.make_node("Conv", ["x", "w2", "b"], ["y"])]
        inits = [initializer("two", np.array(2.0, np.float32)),
                 initializer("b", np.array([0.5, -1.0, 2.0], np.float32))]
        model = make_model(nodes, shapes, {"y": None}, inits)
        check_against_ort(self, model, shapes, feeds=_feeds(shapes, 2))

    def test_constant_filter_with_computed_bias(self):
        for w_shape, group in (([4, 3, 3, 3], 1), ([3, 1, 3, 3], 3)):
            with self.subTest(group=group):
                shapes = {"x": [1, 3, 6, 6], "b": [w_shape[0]]}
                w = rng(13).standard_normal(w_shape).astype(np.float32)
                model = make_model([helper.make_node("Conv", ["x", "w", "b"], ["y"],
                                                     group=group)],
                                   shapes, {"y": None}, [initializer("w", w)])
                check_against_ort(self, model, shapes, feeds=_feeds(shapes, 14))

    def test_constant_subgraph_filter_still_folds(self):
        shapes = {"x": [1, 2, 5, 5]}
        nodes = [helper.make_node("Mul", ["w", "two"], ["w2"]),
                 helper.make_node("Conv", ["x", "w2"], ["y"])]
        inits = [initializer("w", rng(3).standard_normal((3, 2, 3, 3)).astype(np.float32)),
                 initializer("two", np.array(2.0, np.float32))]
        model = make_model(nodes, shapes, {"y": None}, inits)
        converted = check_against_ort(self, model, shapes)
        self.assertEqual(_types(converted), ["Conv2D"])

    def test_conv_transpose_filter_and_bias_as_inputs(self):
        cases = [
            ({"x": [1, 3, 4, 4], "w": [3, 2, 3, 3], "b": [2]}, dict(strides=[2, 2])),
            ({"x": [1, 4, 3, 5], "w": [4, 3, 2, 2]}, dict(group=2, pads=[0, 1, 0, 1])),
            ({"x": [1, 2, 6], "w": [2, 3, 3]}, dict(strides=[2], output_padding=[1])),
        ]
        for shapes, attrs in cases:
            with self.subTest(shapes=str(shapes)):
                model = make_model([helper.make_node("ConvTranspose", list(shapes), ["y"],
                                                     **attrs)], shapes, {"y": None})
                check_against_ort(self, model, shapes, feeds=_feeds(shapes, 4))

    def test_batch_norm_statistics_as_inputs(self):
        shapes = {"x": [2, 3, 4, 5], "s": [3], "b": [3], "m": [3], "v": [3]}
        model = make_model([helper.make_node("BatchNormalization", list(shapes), ["y"],
                                             epsilon=1e-3)], shapes, {"y": None})
        feeds = _feeds(shapes, 5)
        feeds["v"] = np.abs(feeds["v"]) + 0.1
        converted = check_against_ort(self, model, shapes, feeds=feeds)
        self.assertEqual(_types(converted)[-1], "BatchNorm")
        # Only the mean computed: the other three are initializers.
        inits = [initializer(n, np.array([0.5, 1.0, 2.0], np.float32)) for n in "sbv"]
        shapes = {"x": [1, 3, 2, 2], "m": [3]}
        model = make_model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                                             ["y"])], shapes, {"y": None}, inits)
        check_against_ort(self, model, shapes, feeds=_feeds(shapes, 6))

    def test_batch_norm_refuses_statistics_of_the_wrong_shape(self):
        shapes = {"x": [1, 3, 2, 2], "s": [4], "b": [3], "m": [3], "v": [3]}
        model = make_model([helper.make_node("BatchNormalization", list(shapes), ["y"],
                                             name="bn")], shapes, {"y": None})
        with self.assertRaises(ConversionError) as caught:
            convert_model(model, shapes, ["y"])
        self.assertIn("'bn'", str(caught.exception))
        self.assertIn("scale has shape [4]; it must be [3]", str(caught.exception))

    def test_prelu_slope_as_input_or_broadcast(self):
        for shapes in ({"x": [3, 4, 5], "s": [5]}, {"x": [2, 3, 4, 4], "s": [3, 1, 1]},
                       {"x": [2, 3], "s": [1]}):
            with self.subTest(shapes=str(shapes)):
                model = make_model([helper.make_node("PRelu", ["x", "s"], ["y"])], shapes,
                                   {"y": None})
                check_against_ort(self, model, shapes, feeds=_feeds(shapes, 7))
        # A constant slope that is neither scalar nor per channel.
        shapes = {"x": [3, 4, 5]}
        model = make_model([helper.make_node("PRelu", ["x", "s"], ["y"])], shapes, {"y": None},
                           [initializer("s", rng(8).uniform(0, 1, 5).astype(np.float32))])
        check_against_ort(self, model, shapes)
        bad = {"x": [3, 4, 5], "s": [4]}
        model = make_model([helper.make_node("PRelu", ["x", "s"], ["y"], name="p")], bad,
                           {"y": None})
        with self.assertRaises(ConversionError) as caught:
            convert_model(model, bad, ["y"])
        self.assertIn("does not broadcast", str(caught.exception))

    def test_clip_bounds_as_inputs(self):
        x = rng(9).uniform(-2, 2, size=(3, 4)).astype(np.float32)
        low, high = np.array(-0.5, np.float32), np.array(0.75, np.float32)
        for names, feeds in ((["x", "lo", "hi"], {"x": x, "lo": low, "hi": high}),
                             (["x", "", "hi"], {"x": x, "hi": high}),
                             (["x", "lo"], {"x": x, "lo": low})):
            with self.subTest(names=names):
                shapes = {n: list(v.shape) for n, v in feeds.items()}
                model = make_model([helper.make_node("Clip", names, ["y"])], shapes,
                                   {"y": None})
                converted = check_against_ort(self, model, shapes, feeds=feeds)
                self.assertEqual(set(_types(converted)), {"Eltwise"})
        shapes = {"x": [3, 4], "lo": [2]}
        model = make_model([helper.make_node("Clip", ["x", "lo"], ["y"], name="c")], shapes,
                           {"y": None})
        with self.assertRaises(ConversionError) as caught:
            convert_model(model, shapes, ["y"])
        self.assertIn("Clip's min and max are scalars", str(caught.exception))


def _int_input_model(node, inputs, int_inputs, outputs, opset=13):
    """A one-node model with float inputs `inputs` and int64 inputs
    `int_inputs` (name -> shape), and declared output shapes."""
    model = make_model([node], inputs, outputs, opset=opset)
    for name, shape in int_inputs.items():
        model.graph.input.append(helper.make_tensor_value_info(name, TensorProto.INT64, shape))
    return model


class ComputedShapeArgumentsTest(unittest.TestCase):
    def run_both(self, model, feeds, rtol=0.0):
        """Converts with every input's shape, runs the numpy runner and ONNX
        Runtime (int64 inputs as int64 there, as float32 for MACE); equal
        results, or within `rtol` (relative and absolute) when given."""
        expected = ort_run(model, feeds)
        shapes = {name: list(value.shape) for name, value in feeds.items()}
        converted = convert_model(model, shapes, [o.name for o in model.graph.output])
        got = run(converted.net_def, converted.weights,
                  {name: value.astype(np.float32) for name, value in feeds.items()})
        for output, want in zip(model.graph.output, expected):
            if rtol:
                np.testing.assert_allclose(got[output.name], want, rtol=rtol, atol=rtol)
            else:
                np.testing.assert_array_equal(got[output.name], want)
        return converted

    def test_reshape_to_a_computed_shape(self):
        x = rng(10).standard_normal((2, 3, 4)).astype(np.float32)
        for target, declared in (([4, 6], [4, 6]), ([0, -1], [2, 12]), ([-1, 2, 3], [4, 2, 3])):
            with self.subTest(target=target):
                model = _int_input_model(helper.make_node("Reshape", ["x", "s"], ["y"]),
                                         {"x": [2, 3, 4]}, {"s": [len(target)]},
                                         {"y": declared})
                converted = self.run_both(model, {"x": x, "s": np.array(target, np.int64)})
                self.assertEqual(_types(converted), ["Reshape"])
                self.assertEqual(list(converted.net_def.op[0].input), ["x", "s"])

    def test_reshape_refuses_what_it_cannot_plan(self):
        undeclared = _int_input_model(helper.make_node("Reshape", ["x", "s"], ["y"], name="r"),
                                      {"x": [2, 3]}, {"s": [2]}, {"y": None})
        with self.assertRaises(ConversionError) as caught:
            convert_model(undeclared, {"x": [2, 3], "s": [2]}, ["y"])
        self.assertIn("'r'", str(caught.exception))
        self.assertIn("the model must declare that shape", str(caught.exception))
        wrong = _int_input_model(helper.make_node("Reshape", ["x", "s"], ["y"]),
                                 {"x": [2, 3]}, {"s": [2]}, {"y": [4, 2]})
        with self.assertRaises(ConversionError) as caught:
            convert_model(wrong, {"x": [2, 3], "s": [2]}, ["y"])
        self.assertIn("cannot reshape [2, 3] to the declared output shape [4, 2]",
                      str(caught.exception))
        model = _int_input_model(helper.make_node("Reshape", ["x", "s"], ["y"]),
                                 {"x": [2, 3]}, {"s": [2]}, {"y": [3, 2]})
        converted = convert_model(model, {"x": [2, 3], "s": [2]}, ["y"])
        with self.assertRaisesRegex(ValueError, "not the planned"):
            run(converted.net_def, converted.weights,
                {"x": np.zeros((2, 3), np.float32), "s": np.array([1, 6], np.float32)})

    def test_reshape_allowzero_to_a_computed_shape(self):
        # allowzero=1: the 0 in the computed shape is a dimension of size 0.
        model = _int_input_model(
            helper.make_node("Reshape", ["x", "s"], ["y"], allowzero=1),
            {"x": [0, 3, 4]}, {"s": [3]}, {"y": [3, 4, 0]}, opset=14)
        feeds = {"x": np.zeros((0, 3, 4), np.float32), "s": np.array([3, 4, 0], np.int64)}
        converted = self.run_both(model, feeds)
        self.assertEqual(_types(converted), ["Reshape"])
        args = {a.name: a for a in converted.net_def.op[0].arg}
        self.assertEqual(args["allow_zero"].i, 1)
        self.assertEqual(list(args["shape"].ints), [3, 4, 0])
        # Without allowzero a computed 0 copies the input dimension, so a
        # declared 0 cannot be planned.
        copying = _int_input_model(helper.make_node("Reshape", ["x", "s"], ["y"]),
                                   {"x": [0, 3, 4]}, {"s": [3]}, {"y": [3, 4, 0]}, opset=14)
        with self.assertRaises(ConversionError) as caught:
            convert_model(copying, {"x": [0, 3, 4], "s": [3]}, ["y"])
        self.assertIn("copies from the input unless allowzero=1", str(caught.exception))

    def test_slice_with_computed_bounds(self):
        x = rng(11).standard_normal((5, 6, 4)).astype(np.float32)
        cases = [
            (["x", "st", "en"], {"st": [0, 1], "en": [3, 5]}, [3, 4, 4]),
            (["x", "st", "en", "ax"], {"st": [1], "en": [1000], "ax": [-2]}, [5, 5, 4]),
            (["x", "st", "en", "ax", "sp"], {"st": [-1], "en": [-10], "ax": [0], "sp": [-2]},
             [3, 6, 4]),
        ]
        for names, bounds, declared in cases:
            with self.subTest(bounds=str(bounds)):
                model = _int_input_model(helper.make_node("Slice", names, ["y"]),
                                         {"x": [5, 6, 4]},
                                         {n: [len(v)] for n, v in bounds.items()},
                                         {"y": declared})
                feeds = {"x": x, **{n: np.array(v, np.int64) for n, v in bounds.items()}}
                converted = self.run_both(model, feeds)
                self.assertEqual(_types(converted), ["Slice"])
                self.assertEqual([list(s.dims) for s in converted.net_def.op[0].output_shape],
                                 [declared])

    def test_slice_whose_ends_are_its_starts_plus_a_constant(self):
        """No declared shape: ends = starts + 3 - 1 plans two elements per
        sliced axis (steps 1 and 2 give 2 and 1)."""
        x = rng(14).standard_normal((5, 6, 4)).astype(np.float32)
        inits = [initializer("three", np.array([3], np.int64)),
                 initializer("one", np.array([1], np.int64)),
                 initializer("ax", np.array([0, 2], np.int64))]
        for steps, planned in (([1, 1], [2, 6, 2]), ([1, 2], [2, 6, 1])):
            with self.subTest(steps=steps):
                nodes = [helper.make_node("Add", ["st", "three"], ["s3"]),
                         helper.make_node("Sub", ["s3", "one"], ["en"]),
                         helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])]
                model = _int_input_model(nodes[0], {"x": [5, 6, 4]}, {"st": [2]},
                                         {"y": None})
                model.graph.node.extend(nodes[1:])
                model.graph.initializer.extend(inits + [initializer("sp", np.array(
                    steps, np.int64))])
                feeds = {"x": x, "st": np.array([2, 1], np.int64)}
                converted = self.run_both(model, feeds)
                self.assertEqual([list(s.dims) for s in converted.net_def.op[-1].output_shape],
                                 [planned])
        # Bounds that are not the same tensor plus a constant need a declared shape.
        model = _int_input_model(helper.make_node("Slice", ["x", "st", "en"], ["y"]),
                                 {"x": [5, 6, 4]}, {"st": [1], "en": [1]}, {"y": None})
        with self.assertRaisesRegex(ConversionError, "must declare that shape"):
            convert_model(model, {"x": [5, 6, 4], "st": [1], "en": [1]}, ["y"])

    def test_split_with_computed_sizes(self):
        x = rng(12).standard_normal((3, 7)).astype(np.float32)
        for axis, sizes, opset in ((1, [2, 5], 13), (0, [1, 1, 1], 18), (-1, [7], 13)):
            with self.subTest(axis=axis, sizes=sizes):
                outputs = {f"y{i}": [3, s] if axis != 0 else [s, 7]
                           for i, s in enumerate(sizes)}
                model = _int_input_model(
                    helper.make_node("Split", ["x", "s"], list(outputs), axis=axis),
                    {"x": [3, 7]}, {"s": [len(sizes)]}, outputs, opset=opset)
                converted = self.run_both(model, {"x": x, "s": np.array(sizes, np.int64)})
                self.assertEqual(_types(converted), ["Split"])
        model = _int_input_model(helper.make_node("Split", ["x", "s"], ["a", "b"], axis=1),
                                 {"x": [3, 7]}, {"s": [2]}, {"a": [3, 2], "b": None})
        with self.assertRaises(ConversionError) as caught:
            convert_model(model, {"x": [3, 7], "s": [2]}, ["a", "b"])
        self.assertIn("must declare that shape", str(caught.exception))

    def test_reduce_with_computed_axes(self):
        x = rng(13).uniform(0.5, 1.5, size=(3, 2, 4)).astype(np.float32)
        cases = [("ReduceSum", [1], 1, [3, 1, 4], 13), ("ReduceMean", [0, -1], 0, [2], 18),
                 ("ReduceMax", [2], 0, [3, 2], 18), ("ReduceProd", [-3, 1], 1, [1, 1, 4], 18),
                 ("ReduceMin", [1], 1, [3, 1, 4], 18)]
        for op_type, axes, keep, declared, opset in cases:
            with self.subTest(op=op_type, axes=axes, keepdims=keep):
                model = _int_input_model(
                    helper.make_node(op_type, ["x", "a"], ["y"], keepdims=keep),
                    {"x": [3, 2, 4]}, {"a": [len(axes)]}, {"y": declared}, opset=opset)
                converted = self.run_both(model, {"x": x, "a": np.array(axes, np.int64)},
                                          rtol=1e-6)
                self.assertEqual(_types(converted), ["Reduce"])
                self.assertEqual(list(converted.net_def.op[0].input), ["x", "a"])
                self.assertEqual([list(s.dims) for s in converted.net_def.op[0].output_shape],
                                 [declared])
        # Expanded ReduceLogSum: the declared output shape reaches the
        # ReduceSum back through the Log after it.
        nodes = [helper.make_node("ReduceSum", ["x", "a"], ["s"]),
                 helper.make_node("Log", ["s"], ["y"])]
        model = make_model(nodes, {"x": [3, 2, 4]}, {"y": [3, 2, 1]}, opset=13)
        model.graph.input.append(helper.make_tensor_value_info("a", TensorProto.INT64, [1]))
        converted = convert_model(model, {"x": [3, 2, 4], "a": [1]}, ["y"])
        got = run(converted.net_def, converted.weights, {"x": x, "a": np.array([2], np.float32)})
        np.testing.assert_allclose(got["y"], np.log(x.sum(axis=2, keepdims=True)), rtol=1e-6)
        undeclared = _int_input_model(helper.make_node("ReduceSum", ["x", "a"], ["y"], name="r"),
                                      {"x": [3, 2, 4]}, {"a": [1]}, {"y": None})
        with self.assertRaises(ConversionError) as caught:
            convert_model(undeclared, {"x": [3, 2, 4], "a": [1]}, ["y"])
        self.assertIn("'r'", str(caught.exception))
        self.assertIn("the model must declare that shape", str(caught.exception))

    def test_pad_with_computed_pads(self):
        x = rng(14).standard_normal((2, 3, 4)).astype(np.float32)
        cases = [("constant", ["x", "p"], {"p": [0, 1, 2, 1, 0, 0]}, [3, 4, 6]),
                 ("reflect", ["x", "p"], {"p": [1, 2, 0, 0, 0, 3]}, [3, 5, 7]),
                 ("edge", ["x", "p", "", "ax"], {"p": [2, 1], "ax": [-1]}, [2, 3, 7]),
                 ("constant", ["x", "p", "v", "ax"], {"p": [1, 0, 0, 2], "ax": [0, 2]},
                  [3, 3, 6])]
        for mode, names, ints, declared in cases:
            with self.subTest(mode=mode, ints=str(ints)):
                model = _int_input_model(helper.make_node("Pad", names, ["y"], mode=mode),
                                         {"x": [2, 3, 4], "v": [1]} if "v" in names
                                         else {"x": [2, 3, 4]},
                                         {n: [len(v)] for n, v in ints.items()},
                                         {"y": declared}, opset=18)
                feeds = {"x": x, **{n: np.array(v, np.int64) for n, v in ints.items()}}
                if "v" in names:
                    feeds["v"] = np.array([2.5], np.float32)
                converted = self.run_both(model, feeds)
                self.assertEqual(_types(converted), ["Pad"])
                self.assertEqual([list(s.dims) for s in converted.net_def.op[0].output_shape],
                                 [declared])
        # Only the constant value computed: the pads stay constants.
        shapes = {"x": [2, 3], "v": [1]}
        model = make_model([helper.make_node("Pad", ["x", "p", "v"], ["y"])], shapes,
                           {"y": None}, [initializer("p", np.array([1, 0, 0, 2], np.int64))],
                           opset=13)
        check_against_ort(self, model, shapes, feeds={"x": x[0, :2, :3].copy(),
                                                      "v": np.array([-3.0], np.float32)})
        cropping = _int_input_model(helper.make_node("Pad", ["x", "p"], ["y"], name="c"),
                                    {"x": [2, 3, 4]}, {"p": [6]}, {"y": [2, 3, 3]}, opset=18)
        with self.assertRaises(ConversionError) as caught:
            convert_model(cropping, {"x": [2, 3, 4], "p": [6]}, ["y"])
        self.assertIn("negative pads (cropping) are not supported", str(caught.exception))

    def test_pad_whose_shape_is_known_only_at_run_time(self):
        # No declared shape for t: the engine sizes it from the pads on
        # every run. Shape of it is computed (not folded), and a Slice with
        # a declared output may read it; an op that needs its shape at
        # conversion may not.
        nodes = [helper.make_node("Pad", ["x", "p"], ["t"]),
                 helper.make_node("Shape", ["t"], ["s"]),
                 helper.make_node("Sub", ["s", "s"], ["zero"]),
                 helper.make_node("Slice", ["t", "zero", "s"], ["y"])]
        model = _int_input_model(nodes[0], {"x": [2, 3]}, {"p": [4]}, {"y": [3, 6]}, opset=18)
        model.graph.node.extend(nodes[1:])
        x = rng(16).standard_normal((2, 3)).astype(np.float32)
        converted = self.run_both(model, {"x": x, "p": np.array([1, 2, 0, 1], np.int64)})
        pad = next(op for op in converted.net_def.op if op.type == "Pad")
        self.assertEqual(len(pad.output_shape), 0)
        self.assertNotIn("Shape", _types(converted))
        self.assertEqual([list(s.dims) for s in converted.net_def.op[-1].output_shape], [[3, 6]])
        nodes = [helper.make_node("Pad", ["x", "p"], ["t"], name="grow"),
                 helper.make_node("Relu", ["t"], ["y"], name="after")]
        model = _int_input_model(nodes[0], {"x": [2, 3]}, {"p": [4]}, {"y": None}, opset=18)
        model.graph.node.extend(nodes[1:])
        with self.assertRaises(ConversionError) as caught:
            convert_model(model, {"x": [2, 3], "p": [4]}, ["y"])
        self.assertIn("'after'", str(caught.exception))
        self.assertIn("input 't' has a shape known only at run time", str(caught.exception))
        sized = _int_input_model(helper.make_node("Pad", ["x", "p"], ["t"]), {"x": [2, 3]},
                                 {"p": [4]}, {"t": None}, opset=18)
        sized.graph.node.append(helper.make_node("Size", ["t"], ["y"]))
        sized.graph.output[0].name = "y"
        with self.assertRaises(ConversionError) as caught:
            convert_model(sized, {"x": [2, 3], "p": [4]}, ["y"])
        self.assertIn("known only at run time and this Size of it cannot be computed",
                      str(caught.exception))

    def test_resize_with_computed_scales_or_sizes(self):
        x = rng(15).standard_normal((1, 2, 4, 5)).astype(np.float32)
        cases = [("linear", "half_pixel", {"scales": [1, 1, 1.5, 0.6]}, [1, 2, 6, 3]),
                 ("nearest", "asymmetric", {"scales": [1, 1, 2, 2]}, [1, 2, 8, 10]),
                 ("linear", "align_corners", {"sizes": [1, 2, 3, 7]}, [1, 2, 3, 7]),
                 ("nearest", "half_pixel", {"sizes": [1, 2, 7, 3]}, [1, 2, 7, 3])]
        for mode, coordinates, given, declared in cases:
            with self.subTest(mode=mode, given=str(given)):
                name = next(iter(given))
                names = ["x", "", "s"] if name == "scales" else ["x", "", "", "s"]
                node = helper.make_node("Resize", names, ["y"], mode=mode,
                                        coordinate_transformation_mode=coordinates)
                if name == "scales":
                    model = make_model([node], {"x": [1, 2, 4, 5], "s": [4]}, {"y": declared},
                                       opset=13)
                    feeds = {"x": x, "s": np.array(given[name], np.float32)}
                    converted = self.run_both(model, feeds, rtol=1e-5)
                else:
                    model = _int_input_model(node, {"x": [1, 2, 4, 5]}, {"s": [4]},
                                             {"y": declared})
                    converted = self.run_both(model, {"x": x, "s": np.array(given[name],
                                                                            np.int64)},
                                              rtol=1e-5)
                op = converted.net_def.op[0]
                self.assertEqual(len(op.input), 3 if name == "scales" else 2)
                self.assertEqual([list(s.dims) for s in op.output_shape], [declared])
        # align_corners with computed scales: ONNX (in * scale - 1) and ONNX
        # Runtime (out - 1) differ whenever in * scale is not whole, so it
        # becomes the general Resize, which follows ONNX's definition.
        corners = make_model([helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear",
                                               coordinate_transformation_mode="align_corners")],
                             {"x": [1, 2, 4, 5], "s": [4]}, {"y": [1, 2, 6, 3]}, opset=13)
        feeds = {"x": x, "s": np.array([1, 1, 1.5, 0.7], np.float32)}
        converted = convert_model(corners, {"x": [1, 2, 4, 5], "s": [4]}, ["y"])
        self.assertEqual([op.type for op in converted.net_def.op], ["Resize"])
        np.testing.assert_allclose(run(converted.net_def, converted.weights, feeds)["y"],
                                   ReferenceEvaluator(corners).run(None, feeds)[0], rtol=1e-5)
        # Opset 18's axes [2, 3]: two sizes, H then W.
        model = _int_input_model(helper.make_node("Resize", ["x", "", "", "s"], ["y"],
                                                  axes=[2, 3]),
                                 {"x": [1, 2, 4, 5]}, {"s": [2]}, {"y": [1, 2, 8, 3]}, opset=18)
        self.run_both(model, {"x": x, "s": np.array([8, 3], np.int64)}, rtol=1e-5)
        undeclared = make_model([helper.make_node("Resize", ["x", "", "s"], ["y"], name="r")],
                                {"x": [1, 2, 4, 5], "s": [4]}, {"y": None}, opset=13)
        with self.assertRaises(ConversionError) as caught:
            convert_model(undeclared, {"x": [1, 2, 4, 5], "s": [4]}, ["y"])
        self.assertIn("the model must declare that shape", str(caught.exception))

    def test_reduce_with_empty_axes_input_and_empty_sets(self):
        x = rng(17).standard_normal((2, 3, 4)).astype(np.float32)
        for noop, declared in ((0, [1, 1, 1]), (1, [2, 3, 4])):
            with self.subTest(noop_with_empty_axes=noop):
                model = _int_input_model(
                    helper.make_node("ReduceSum", ["x", "a"], ["y"], noop_with_empty_axes=noop),
                    {"x": [2, 3, 4]}, {"a": [0]}, {"y": declared}, opset=18)
                feeds = {"x": x, "a": np.zeros(0, np.int64)}
                converted = convert_model(model, {"x": [2, 3, 4], "a": [0]}, ["y"])
                got = run(converted.net_def, converted.weights,
                          {"x": x, "a": np.zeros(0, np.float32)})["y"]
                np.testing.assert_allclose(got, ReferenceEvaluator(model).run(None, feeds)[0],
                                           rtol=1e-5)
        empty = np.zeros((2, 0, 4), np.float32)
        for op_type in ("ReduceMax", "ReduceMin", "ReduceProd", "ReduceSum"):
            with self.subTest(op=op_type):
                model = make_model([helper.make_node(op_type, ["x", "a"], ["y"])],
                                   {"x": [2, 0, 4]}, {"y": [2, 1, 4]},
                                   [initializer("a", np.array([1], np.int64))], opset=18)
                converted = convert_model(model, {"x": [2, 0, 4]}, ["y"])
                got = run(converted.net_def, converted.weights, {"x": empty})["y"]
                np.testing.assert_array_equal(
                    got, ReferenceEvaluator(model).run(None, {"x": empty})[0])

    def test_squeeze_and_unsqueeze_with_computed_axes(self):
        x = rng(16).standard_normal((1, 3, 1, 2)).astype(np.float32)
        for op_type, axes, declared in (("Squeeze", [0], [3, 1, 2]), ("Squeeze", [-2, 0], [3, 2]),
                                        ("Unsqueeze", [1, -1], [1, 1, 3, 1, 2, 1])):
            with self.subTest(op=op_type, axes=axes):
                model = _int_input_model(helper.make_node(op_type, ["x", "a"], ["y"]),
                                         {"x": [1, 3, 1, 2]}, {"a": [len(axes)]},
                                         {"y": declared})
                converted = self.run_both(model, {"x": x, "a": np.array(axes, np.int64)})
                self.assertEqual(_types(converted), ["Squeeze"])
                self.assertEqual([list(s.dims) for s in converted.net_def.op[0].output_shape],
                                 [declared])

    def test_top_k_and_tile_with_computed_arguments(self):
        x = rng(17).standard_normal((3, 5)).astype(np.float32)
        model = _int_input_model(helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1),
                                 {"x": [3, 5]}, {"k": [1]}, {"v": [3, 2]})
        model.graph.output.append(helper.make_tensor_value_info("i", TensorProto.INT64, [3, 2]))
        converted = self.run_both(model, {"x": x, "k": np.array([2], np.int64)})
        self.assertEqual(_types(converted), ["TopK"])
        self.assertEqual(list(converted.net_def.op[0].input), ["x", "k"])
        model = _int_input_model(helper.make_node("Tile", ["x", "r"], ["y"]), {"x": [3, 5]},
                                 {"r": [2]}, {"y": [6, 5]})
        converted = self.run_both(model, {"x": x, "r": np.array([2, 1], np.int64)})
        self.assertEqual(_types(converted), ["Tile"])
        with self.assertRaisesRegex(ValueError, "not the planned"):
            run(converted.net_def, converted.weights,
                {"x": x, "r": np.array([1, 2], np.float32)})
        bad = _int_input_model(helper.make_node("Tile", ["x", "r"], ["y"], name="t"),
                               {"x": [3, 5]}, {"r": [2]}, {"y": [4, 5]})
        with self.assertRaises(ConversionError) as caught:
            convert_model(bad, {"x": [3, 5], "r": [2]}, ["y"])
        self.assertIn("is not a tiling of [3, 5]", str(caught.exception))

    def test_expand_to_a_computed_shape(self):
        x = rng(18).standard_normal((3, 1)).astype(np.float32)
        for target, declared in (([2, 3, 4], [2, 3, 4]), ([3, 1], [3, 1]), ([1, 5], [3, 5])):
            with self.subTest(target=target):
                model = _int_input_model(helper.make_node("Expand", ["x", "s"], ["y"]),
                                         {"x": [3, 1]}, {"s": [len(target)]}, {"y": declared})
                converted = self.run_both(model, {"x": x, "s": np.array(target, np.int64)})
                self.assertEqual(_types(converted)[-1], "Tile")
        converted = convert_model(model, {"x": [3, 1], "s": [2]}, ["y"])
        with self.assertRaisesRegex(ValueError, "not the planned"):
            run(converted.net_def, converted.weights,
                {"x": x, "s": np.array([1, 4], np.float32)})


if __name__ == "__main__":
    unittest.main()
