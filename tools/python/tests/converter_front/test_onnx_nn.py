"""One-node ONNX models of the convolution, pooling, dense and activation
families: converted, run by the numpy runner, compared with ONNX Runtime."""
import unittest

import numpy as np
from onnx import helper

from mace_converter.api import ConversionError

from tests.converter_front.helpers import (check_against_ort, convert_model, initializer,
                                           make_model, rng)


def _conv_case(test, x_shape, w_shape, opset=13, bias=True, **attrs):
    r = rng(len(test.id()))
    inits = [initializer("w", r.standard_normal(w_shape).astype(np.float32))]
    names = ["x", "w"]
    if bias:
        channels = w_shape[1] * attrs.get("group", 1) if attrs.get("_transposed") \
            else w_shape[0]
        inits.append(initializer("b", r.standard_normal(channels).astype(np.float32)))
        names.append("b")
    op_type = "ConvTranspose" if attrs.pop("_transposed", False) else "Conv"
    model = make_model([helper.make_node(op_type, names, ["y"], **attrs)],
                       {"x": x_shape}, {"y": None}, inits, opset)
    return check_against_ort(test, model, {"x": x_shape}, rtol=1e-4, atol=1e-4)


class ConvTest(unittest.TestCase):
    def test_conv_variants(self):
        cases = [
            dict(x_shape=[1, 3, 9, 9], w_shape=[4, 3, 3, 3]),
            dict(x_shape=[2, 3, 9, 8], w_shape=[5, 3, 3, 2], pads=[1, 0, 2, 1], strides=[2, 1]),
            dict(x_shape=[1, 4, 10, 10], w_shape=[6, 2, 3, 3], group=2, bias=False),
            dict(x_shape=[1, 3, 11, 11], w_shape=[4, 3, 3, 3], dilations=[2, 2],
                 pads=[2, 2, 2, 2]),
            dict(x_shape=[1, 3, 11, 11], w_shape=[4, 3, 3, 3], auto_pad="SAME_UPPER"),
            dict(x_shape=[1, 3, 10, 10], w_shape=[4, 3, 4, 4], strides=[3, 3],
                 auto_pad="SAME_LOWER"),
            dict(x_shape=[1, 3, 7, 7], w_shape=[2, 3, 3, 3], auto_pad="VALID", opset=7),
            dict(x_shape=[1, 3, 7, 7], w_shape=[2, 3, 3, 3], opset=21),
        ]
        for case in cases:
            with self.subTest(**{k: str(v) for k, v in case.items()}):
                _conv_case(self, **case)

    def test_one_dimensional_windows(self):
        """Rank-3 Conv, ConvTranspose and pooling run as 2-D ops on a height
        of one, between two Reshapes."""
        cases = [
            dict(x_shape=[1, 3, 17], w_shape=[4, 3, 3]),
            dict(x_shape=[2, 4, 16], w_shape=[6, 2, 5], group=2, strides=[2], pads=[2, 1]),
            dict(x_shape=[1, 3, 15], w_shape=[3, 1, 3], group=3, dilations=[2], pads=[2, 2]),
            dict(x_shape=[1, 3, 15], w_shape=[6, 1, 4], group=3, strides=[2],
                 auto_pad="SAME_UPPER"),
            dict(x_shape=[1, 2, 9], w_shape=[2, 3, 4], strides=[3], _transposed=True),
            dict(x_shape=[1, 2, 7], w_shape=[2, 3, 3], strides=[2], pads=[1, 1],
                 output_padding=[1], _transposed=True),
        ]
        for case in cases:
            with self.subTest(**{k: str(v) for k, v in case.items()}):
                model = _conv_case(self, **case)
                types = [op.type for op in model.net_def.op]
                self.assertEqual((types[0], types[-1]), ("Reshape", "Reshape"), types)
        for op, attrs in (("MaxPool", dict(kernel_shape=[3], strides=[2])),
                          ("AveragePool", dict(kernel_shape=[4], pads=[1, 2],
                                               count_include_pad=1)),
                          ("MaxPool", dict(kernel_shape=[2], dilations=[2], ceil_mode=1,
                                           strides=[2]))):
            with self.subTest(op=op, **{k: str(v) for k, v in attrs.items()}):
                model = make_model([helper.make_node(op, ["x"], ["y"], **attrs)],
                                   {"x": [2, 3, 11]}, {"y": None})
                check_against_ort(self, model, {"x": [2, 3, 11]})
        bad = make_model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3],
                                           pads=[1, 1, 1, 1])], {"x": [1, 2, 9]}, {"y": None})
        with self.assertRaises(ConversionError) as caught:
            convert_model(bad, {"x": [1, 2, 9]}, ["y"])
        self.assertIn("MaxPool node: Attribute pads has incorrect size",
                      str(caught.exception))

    def test_depthwise_becomes_depthwise_op(self):
        for multiplier in (1, 2):
            with self.subTest(multiplier=multiplier):
                model = _conv_case(self, [1, 4, 9, 9], [4 * multiplier, 1, 3, 3], group=4,
                                   pads=[1, 1, 1, 1], strides=[2, 2])
                self.assertEqual([op.type for op in model.net_def.op], ["DepthwiseConv2d"])

    def test_conv_transpose(self):
        cases = [
            dict(x_shape=[1, 3, 5, 5], w_shape=[3, 4, 3, 3], strides=[2, 2]),
            dict(x_shape=[1, 3, 5, 6], w_shape=[3, 2, 4, 4], strides=[2, 2], pads=[1, 1, 1, 1],
                 output_padding=[1, 0]),
            dict(x_shape=[1, 4, 4, 4], w_shape=[4, 3, 3, 3], group=2, strides=[2, 2],
                 auto_pad="SAME_UPPER"),
            dict(x_shape=[1, 2, 4, 4], w_shape=[2, 3, 3, 3], strides=[2, 2],
                 output_shape=[9, 8]),
            dict(x_shape=[1, 2, 4, 4], w_shape=[2, 3, 2, 2], dilations=[2, 2]),
        ]
        for case in cases:
            with self.subTest(**{k: str(v) for k, v in case.items()}):
                _conv_case(self, _transposed=True, **case)


class PoolDenseTest(unittest.TestCase):
    def _unary(self, node, x_shape, opset=13, inits=(), **kwargs):
        model = make_model([node], {"x": x_shape}, {"y": None}, inits, opset)
        return check_against_ort(self, model, {"x": x_shape}, **kwargs)

    def test_pools(self):
        cases = [
            ("MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
            ("MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
            ("MaxPool", dict(kernel_shape=[2, 2], auto_pad="SAME_UPPER", strides=[2, 2])),
            ("MaxPool", dict(kernel_shape=[3, 3], dilations=[2, 2])),
            ("AveragePool", dict(kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])),
            ("AveragePool", dict(kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
                                 count_include_pad=1)),
            ("AveragePool", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1,
                                 pads=[0, 0, 1, 1])),
            ("GlobalAveragePool", {}),
            ("GlobalMaxPool", {}),
        ]
        for op_type, attrs in cases:
            with self.subTest(op=op_type, **{k: str(v) for k, v in attrs.items()}):
                self._unary(helper.make_node(op_type, ["x"], ["y"], **attrs), [1, 3, 10, 10])

    def test_global_pools_over_1d_and_3d_features(self):
        for op_type in ("GlobalAveragePool", "GlobalMaxPool"):
            for shape in ([2, 5, 17], [1, 3, 4, 5, 6]):
                with self.subTest(op=op_type, shape=shape):
                    model = self._unary(helper.make_node(op_type, ["x"], ["y"]), shape)
                    self.assertEqual([op.type for op in model.net_def.op], ["Reduce"])
            with self.subTest(op=op_type, shape=[2, 5]):
                model = make_model([helper.make_node(op_type, ["x"], ["y"])], {"x": [2, 5]},
                                   {"y": None})
                with self.assertRaisesRegex(ConversionError, "at least one spatial axis"):
                    convert_model(model, {"x": [2, 5]}, ["y"])

    def test_gemm_and_matmul(self):
        r = rng(3)
        w = r.standard_normal((6, 5)).astype(np.float32)
        c = r.standard_normal(6).astype(np.float32)
        for attrs in (dict(transB=1), dict(transB=1, alpha=0.5, beta=2.0)):
            node = helper.make_node("Gemm", ["x", "w", "c"], ["y"], **attrs)
            model = self._unary(node, [3, 5], inits=[initializer("w", w), initializer("c", c)])
            self.assertEqual(model.net_def.op[0].type, "FullyConnected")
        node = helper.make_node("Gemm", ["x", "w"], ["y"], transA=1)
        self._unary(node, [6, 3], inits=[initializer("w", w)])
        node = helper.make_node("MatMul", ["x", "w"], ["y"])
        self._unary(node, [2, 3, 4, 6], inits=[initializer("w", w)])
        model = make_model([helper.make_node("MatMul", ["a", "b"], ["y"])],
                           {"a": [2, 1, 3, 4], "b": [3, 4, 2]}, {"y": None})
        check_against_ort(self, model, {"a": [2, 1, 3, 4], "b": [3, 4, 2]})
        model = make_model([helper.make_node("MatMul", ["a", "b"], ["y"])],
                           {"a": [4], "b": [2, 4, 3]}, {"y": None})
        check_against_ort(self, model, {"a": [4], "b": [2, 4, 3]})

    def test_activations(self):
        r = rng(4)
        cases = [
            (helper.make_node("Relu", ["x"], ["y"]), 13, []),
            (helper.make_node("Sigmoid", ["x"], ["y"]), 13, []),
            (helper.make_node("Tanh", ["x"], ["y"]), 13, []),
            (helper.make_node("HardSwish", ["x"], ["y"]), 14, []),
            (helper.make_node("HardSigmoid", ["x"], ["y"], alpha=0.3, beta=0.4), 13, []),
            (helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.2), 13, []),
            (helper.make_node("Clip", ["x"], ["y"], min=0.0, max=6.0), 7, []),
            (helper.make_node("Clip", ["x", "lo", "hi"], ["y"]), 13,
             [initializer("lo", np.float32(-0.5)), initializer("hi", np.float32(0.25))]),
            (helper.make_node("Clip", ["x", "lo"], ["y"]), 11, [initializer("lo", np.float32(0))]),
            (helper.make_node("PRelu", ["x", "s"], ["y"]), 9,
             [initializer("s", r.uniform(0, 0.5, (3, 1, 1)).astype(np.float32))]),
            (helper.make_node("PRelu", ["x", "s"], ["y"]), 16,
             [initializer("s", np.array([0.1], np.float32))]),
            (helper.make_node("LRN", ["x"], ["y"], size=3, alpha=0.01, beta=0.6, bias=1.5), 13,
             []),
            (helper.make_node("Sqrt", ["x"], ["y"]), 13, []),
        ]
        for node, opset, inits in cases:
            with self.subTest(op=node.op_type, opset=opset):
                scale = 4.0 if node.op_type == "Clip" else 1.0
                shape = [1, 3, 4, 5]
                feeds = {"x": (rng(5).uniform(-1, 1, shape) * scale).astype(np.float32)}
                if node.op_type == "Sqrt":
                    feeds["x"] = np.abs(feeds["x"])
                model = make_model([node], {"x": shape}, {"y": None}, inits, opset)
                check_against_ort(self, model, {"x": shape}, feeds=feeds)

    def test_unary_math(self):
        """Each ONNX op that becomes a Unary, through the numpy runner's
        kernel, against ONNX Runtime on each function's domain."""
        cases = [(op, 13, {}) for op in (
            "Exp", "Log", "Floor", "Ceil", "Round", "Sign", "Erf", "Softplus", "Softsign",
            "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
            "Atanh")]
        cases += [("Elu", 13, dict(alpha=0.7)), ("Selu", 13, {}),
                  ("Selu", 13, dict(alpha=1.5, gamma=0.9)), ("Celu", 13, dict(alpha=2.0)),
                  ("ThresholdedRelu", 13, dict(alpha=0.25)), ("Mish", 18, {}),
                  ("Gelu", 20, {}), ("Gelu", 20, dict(approximate="tanh"))]
        shape = [2, 3, 5]
        for op, opset, attrs in cases:
            with self.subTest(op=op, **{k: str(v) for k, v in attrs.items()}):
                x = rng(7).uniform(-3, 3, shape)
                if op in ("Log", "Acosh"):
                    x = np.abs(x) + 1.01
                if op in ("Asin", "Acos", "Atanh"):
                    x = x / 3.1
                if op == "Round":
                    x[0] = [-2.5, -0.5, 0.5, 1.5, 2.5]
                node = helper.make_node(op, ["x"], ["y"], **attrs)
                model = make_model([node], {"x": shape}, {"y": None}, [], opset)
                converted = check_against_ort(self, model, {"x": shape},
                                              feeds={"x": x.astype(np.float32)})
                self.assertEqual([o.type for o in converted.net_def.op], ["Unary"])

    def test_batch_norm_standalone(self):
        r = rng(6)
        params = [r.uniform(0.5, 1.5, 3), r.standard_normal(3), r.standard_normal(3),
                  r.uniform(0.5, 2, 3)]
        inits = [initializer(n, p.astype(np.float32)) for n, p in zip("sbmv", params)]
        node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"],
                                epsilon=1e-3)
        self._unary(node, [2, 3, 4, 4], inits=inits)
        self._unary(node, [2, 3, 4, 4], inits=inits, opset=9)


if __name__ == "__main__":
    unittest.main()
