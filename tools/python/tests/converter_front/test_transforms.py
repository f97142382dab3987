"""The transforms: each rewritten model must compute what the original ONNX
model computes under ONNX Runtime, and the rewrite must have happened."""
import unittest

import numpy as np
from onnx import helper

from mace_converter.ir import Graph
from mace_converter.transforms.fold_constants import fold_constants
from tests.converter_front.helpers import check_against_ort, initializer, make_model, rng


def _arrays(seed, **shapes):
    r = rng(seed)
    return {name: (r.standard_normal(shape) * 0.5).astype(np.float32)
            for name, shape in shapes.items()}


def _bn_inits(prefix, channels, seed):
    r = rng(seed)
    params = (r.uniform(0.5, 1.5, channels), r.standard_normal(channels),
              r.standard_normal(channels) * 0.1, r.uniform(0.5, 2.0, channels))
    return [initializer(f"{prefix}{k}", p.astype(np.float32)) for k, p in zip("sbmv", params)]


def _i64(name, value):
    return initializer(name, np.array(value, np.int64))


def _bn(x, y, prefix="bn_"):
    return helper.make_node("BatchNormalization", [x] + [f"{prefix}{k}" for k in "sbmv"], [y])


class FoldingTest(unittest.TestCase):
    def _types(self, converted):
        return [op.type for op in converted.net_def.op]

    def test_batch_norm_folds_into_each_weighted_op(self):
        w = _arrays(1, conv=(6, 3, 3, 3), dw=(8, 1, 3, 3), deconv=(4, 3, 2, 2), fc=(5, 7))
        cases = [
            ("Conv", [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1])],
             [1, 3, 6, 6], w["conv"], 6),
            ("depthwise x2", [helper.make_node("Conv", ["x", "w"], ["c"], group=4)],
             [1, 4, 6, 6], w["dw"], 8),
            ("ConvTranspose", [helper.make_node("ConvTranspose", ["x", "w"], ["c"], group=2,
                                                strides=[2, 2])], [1, 4, 3, 3],
             w["deconv"], 6),
            ("Gemm", [helper.make_node("Gemm", ["x", "w"], ["c"], transB=1)], [2, 7], w["fc"], 5),
        ]
        for label, nodes, x_shape, weights, channels in cases:
            with self.subTest(label):
                model = make_model(nodes + [_bn("c", "y")], {"x": x_shape}, {"y": None},
                                   [initializer("w", weights)] + _bn_inits("bn_", channels, 2))
                converted = check_against_ort(self, model, {"x": x_shape}, rtol=1e-4, atol=1e-5)
                self.assertNotIn("BatchNorm", self._types(converted))
                self.assertEqual(len(converted.net_def.op), 1)

    def test_no_fold_when_the_output_has_another_reader(self):
        w = _arrays(3, w=(4, 3, 1, 1))
        nodes = [helper.make_node("Conv", ["x", "w"], ["c"]), _bn("c", "b"),
                 helper.make_node("Add", ["b", "c"], ["y"])]
        model = make_model(nodes, {"x": [1, 3, 4, 4]}, {"y": None},
                           [initializer("w", w["w"])] + _bn_inits("bn_", 4, 4))
        converted = check_against_ort(self, model, {"x": [1, 3, 4, 4]})
        self.assertIn("BatchNorm", self._types(converted))

    def test_bias_and_scale_eltwise_fold(self):
        w = _arrays(5, w=(4, 3, 3, 3), b=(1, 4, 1, 1), s=(4, 1, 1), grid=(1, 1, 4, 4))
        nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                 helper.make_node("Mul", ["c", "s"], ["m"]),
                 helper.make_node("Add", ["b", "m"], ["a"]),
                 helper.make_node("Sub", ["a", "half"], ["y"])]
        inits = [initializer(n, w[n]) for n in ("w", "b", "s")] + \
            [initializer("half", np.array(0.5, np.float32))]
        model = make_model(nodes, {"x": [1, 3, 4, 4]}, {"y": None}, inits)
        converted = check_against_ort(self, model, {"x": [1, 3, 4, 4]})
        self.assertEqual(self._types(converted), ["Conv2D"])
        # A constant that varies over H and W is no bias: it must stay an Eltwise.
        nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                 helper.make_node("Add", ["c", "grid"], ["y"])]
        model = make_model(nodes, {"x": [1, 3, 4, 4]}, {"y": None},
                           [initializer("w", w["w"]), initializer("grid", w["grid"])])
        converted = check_against_ort(self, model, {"x": [1, 3, 4, 4]})
        self.assertEqual(self._types(converted), ["Conv2D", "Eltwise"])

    def test_activation_fusion(self):
        w = _arrays(6, w=(4, 3, 3, 3), fc=(5, 4))
        cases = [
            ([helper.make_node("Conv", ["x", "w"], ["c"]),
              helper.make_node("Clip", ["c", "lo", "hi"], ["y"])], "RELU6", "Conv2D"),
            ([helper.make_node("Conv", ["x", "w"], ["c"]),
              helper.make_node("LeakyRelu", ["c"], ["y"], alpha=0.3)], "LEAKYRELU", "Conv2D"),
            ([helper.make_node("Add", ["x", "x"], ["c"]),
              helper.make_node("Relu", ["c"], ["y"])], "RELU", "Eltwise"),
            ([_bn("x", "c"), helper.make_node("Sigmoid", ["c"], ["y"])], "SIGMOID", "BatchNorm"),
            ([helper.make_node("Conv", ["x", "w"], ["c"]),
              helper.make_node("Tanh", ["c"], ["y"])], "TANH", "Conv2D"),
            ([helper.make_node("Conv", ["x", "w"], ["c"]),
              helper.make_node("HardSwish", ["c"], ["y"])], "HARDSWISH", "Conv2D"),
        ]
        inits = [initializer("w", w["w"]), initializer("lo", np.array(0, np.float32)),
                 initializer("hi", np.array(6, np.float32))] + _bn_inits("bn_", 3, 7)
        for nodes, activation, op_type in cases:
            with self.subTest(activation):
                model = make_model(nodes, {"x": [1, 3, 5, 5]}, {"y": None}, inits, 14)
                feeds = {"x": (rng(8).uniform(-8, 8, (1, 3, 5, 5))).astype(np.float32)}
                # Sigmoid and tanh stay separate for the CPU, whose vector
                # kernels run them as Activation ops; the GPU fuses them.
                separate = activation in ("SIGMOID", "TANH")
                for runtime in ("cpu", "gpu") if separate else ("cpu",):
                    converted = check_against_ort(self, model, {"x": [1, 3, 5, 5]}, feeds=feeds,
                                                  runtime=runtime)
                    if runtime == "cpu" and separate:
                        self.assertEqual(self._types(converted), [op_type, "Activation"])
                        args = {a.name: a for a in converted.net_def.op[1].arg}
                    else:
                        self.assertEqual(self._types(converted), [op_type])
                        args = {a.name: a for a in converted.net_def.op[0].arg}
                    self.assertEqual(args["activation"].s.decode(), activation)

    def test_pytorch_shape_arithmetic_folds_away(self):
        nodes = [helper.make_node("Shape", ["x"], ["shape"]),
                 helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
                 helper.make_node("Unsqueeze", ["batch", "axes"], ["batch1"]),
                 helper.make_node("Concat", ["batch1", "minus_one"], ["target"], axis=0),
                 helper.make_node("Reshape", ["x", "target"], ["flat"]),
                 helper.make_node("Constant", [], ["shape2_f"],
                                  value=helper.make_tensor("s", 1, [2], [1.0, 48.0])),
                 helper.make_node("Cast", ["shape2_f"], ["shape2"], to=7),
                 helper.make_node("ConstantOfShape", ["shape2"], ["ones"],
                                  value=helper.make_tensor("v", 1, [1], [2.0])),
                 helper.make_node("Mul", ["flat", "ones"], ["y"])]
        inits = [_i64("zero", 0), _i64("axes", [0]), _i64("minus_one", [-1])]
        model = make_model(nodes, {"x": [1, 3, 4, 4]}, {"y": None}, inits)
        converted = check_against_ort(self, model, {"x": [1, 3, 4, 4]})
        self.assertEqual(self._types(converted), ["Reshape", "Eltwise"])
        self.assertTrue(any("evaluated" in line for line in converted.log))

    def test_noops_are_removed(self):
        nodes = [helper.make_node("Identity", ["x"], ["a"]),
                 helper.make_node("Dropout", ["a"], ["b"]),
                 helper.make_node("Reshape", ["b", "same"], ["c"]),
                 helper.make_node("Transpose", ["c"], ["d"], perm=[0, 1, 2, 3]),
                 helper.make_node("Reshape", ["d", "flat"], ["e"]),
                 helper.make_node("Reshape", ["e", "back"], ["f"]),
                 helper.make_node("Relu", ["f"], ["y"])]
        inits = [_i64("same", [1, 3, 4, 4]), _i64("flat", [1, 48]), _i64("back", [3, 16])]
        model = make_model(nodes, {"x": [1, 3, 4, 4]}, {"y": None}, inits)
        converted = check_against_ort(self, model, {"x": [1, 3, 4, 4]})
        self.assertEqual(self._types(converted), ["Reshape", "Activation"])

    def test_ir_constant_folding_uses_the_numpy_kernels(self):
        graph = Graph("g")
        graph.add_input("x", [2, 3])
        a = graph.add_const("a", np.arange(6, dtype=np.float32).reshape(2, 3))
        t = graph.add_op("Transpose", [a], 1, args={"dims": [1, 0]}).outputs[0]
        s = graph.add_op("Eltwise", [t], 1, args={"type": 2, "scalar_input": 2.0}).outputs[0]
        r = graph.add_op("Reshape", [s], 1, args={"shape": [2, 3]}).outputs[0]
        y = graph.add_op("Eltwise", ["x", r], ["y"], args={"type": 0}).outputs[0]
        graph.outputs = [y]
        self.assertEqual(fold_constants(graph), 3)
        self.assertEqual([op.type for op in graph.ops], ["Eltwise"])
        folded = graph.const(graph.ops[0].inputs[1])
        np.testing.assert_array_equal(folded, (np.arange(6).reshape(2, 3).T * 2).reshape(2, 3))


if __name__ == "__main__":
    unittest.main()


def _shuffle_split(x_shape, split_axis, sizes, extra_reader=False):
    """Relu -> channel shuffle (Reshape, Transpose, Reshape) in 2 groups ->
    Split into `sizes` along `split_axis` -> a Relu on each piece; with
    `extra_reader` the shuffled tensor also feeds a third output."""
    n, c, h, w = x_shape
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Reshape", ["r", "s5"], ["g"]),
             helper.make_node("Transpose", ["g"], ["t"], perm=[0, 2, 1, 3, 4]),
             helper.make_node("Reshape", ["t", "s4"], ["sh"]),
             helper.make_node("Split", ["sh", "sizes"], [f"p{i}" for i in range(len(sizes))],
                              axis=split_axis)]
    nodes += [helper.make_node("Relu", [f"p{i}"], [f"y{i}"]) for i in range(len(sizes))]
    outputs = {f"y{i}": None for i in range(len(sizes))}
    if extra_reader:
        nodes.append(helper.make_node("Sigmoid", ["sh"], ["z"]))
        outputs["z"] = None
    inits = [_i64("s5", [n, 2, c // 2, h, w]), _i64("s4", [n, c, h, w]), _i64("sizes", sizes)]
    return make_model(nodes, {"x": x_shape}, outputs, inits)


class ShuffleSplitTest(unittest.TestCase):
    def _ops(self, converted):
        return [(op.type, len(op.output)) for op in converted.net_def.op]

    def test_split_of_the_shuffled_channels_fuses_on_the_cpu(self):
        for shape, sizes in (([1, 8, 3, 3], [4, 4]), ([2, 12, 2, 3], [4, 4, 4])):
            with self.subTest(shape=shape, sizes=sizes):
                model = _shuffle_split(shape, 1, sizes)
                converted = check_against_ort(self, model, {"x": shape})
                ops = self._ops(converted)
                self.assertIn(("ChannelShuffle", len(sizes)), ops)
                self.assertNotIn("Split", [t for t, _ in ops])

    def test_no_fusion_elsewhere(self):
        cases = [
            ("split on height", _shuffle_split([1, 8, 4, 3], 2, [2, 2]), [1, 8, 4, 3], {}),
            ("unequal pieces", _shuffle_split([1, 8, 3, 3], 1, [2, 6]), [1, 8, 3, 3], {}),
            ("another reader", _shuffle_split([1, 8, 3, 3], 1, [4, 4], extra_reader=True),
             [1, 8, 3, 3], {}),
            ("GPU graph", _shuffle_split([1, 8, 3, 3], 1, [4, 4]), [1, 8, 3, 3],
             {"runtime": "gpu"}),
        ]
        for label, model, shape, options in cases:
            with self.subTest(label):
                converted = check_against_ort(self, model, {"x": shape}, **options)
                ops = self._ops(converted)
                self.assertIn(("ChannelShuffle", 1), ops)
                self.assertIn("Split", [t for t, _ in ops])


def _shuffle_into_convs(c, depthwise_output=False, other_reader=False):
    """Relu -> channel shuffle in 2 groups read by a 1x1 convolution and by
    a 3x3 stride-2 depthwise convolution with a 1x1 one after it
    (ShuffleNet v2's downsampling unit). With `depthwise_output` the
    depthwise result is also an output; with `other_reader` a Sigmoid
    reads the shuffled channels too."""
    h, w = 5, 6
    weights = _arrays(21, pw=(7, c, 1, 1), dw=(c, 1, 3, 3), pw2=(5, c, 1, 1),
                      b1=(7,), b2=(c,), b3=(5,))
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Reshape", ["r", "s5"], ["g"]),
             helper.make_node("Transpose", ["g"], ["t"], perm=[0, 2, 1, 3, 4]),
             helper.make_node("Reshape", ["t", "s4"], ["sh"]),
             helper.make_node("Conv", ["sh", "pw", "b1"], ["y0"]),
             helper.make_node("Conv", ["sh", "dw", "b2"], ["d"], group=c, strides=[2, 2],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["d", "pw2", "b3"], ["y1"])]
    outputs = {"y0": None, "y1": None}
    if depthwise_output:
        outputs["d"] = None
    if other_reader:
        nodes.append(helper.make_node("Sigmoid", ["sh"], ["z"]))
        outputs["z"] = None
    inits = [_i64("s5", [1, 2, c // 2, h, w]), _i64("s4", [1, c, h, w])]
    inits += [initializer(name, value) for name, value in weights.items()]
    return make_model(nodes, {"x": [1, c, h, w]}, outputs, inits), [1, c, h, w]


class ShuffleIntoConvolutionsTest(unittest.TestCase):
    def _types(self, converted):
        return [op.type for op in converted.net_def.op]

    def test_shuffle_read_by_convolutions_folds_on_the_cpu(self):
        for channels in (4, 10):
            with self.subTest(channels=channels):
                model, shape = _shuffle_into_convs(channels)
                converted = check_against_ort(self, model, {"x": shape})
                self.assertNotIn("ChannelShuffle", self._types(converted))

    def test_no_fold_elsewhere(self):
        cases = [
            ("depthwise output", _shuffle_into_convs(6, depthwise_output=True), {}),
            ("another reader", _shuffle_into_convs(6, other_reader=True), {}),
            ("GPU graph", _shuffle_into_convs(6), {"runtime": "gpu"}),
        ]
        for label, (model, shape), options in cases:
            with self.subTest(label):
                converted = check_against_ort(self, model, {"x": shape}, **options)
                self.assertIn("ChannelShuffle", self._types(converted))
