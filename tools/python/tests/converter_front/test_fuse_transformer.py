"""The transformer fusions: each exporter's LayerNorm and GELU chain becomes
one engine op whose numpy-runner output matches ONNX Runtime on the
original graph; near misses stay unfused and still match; attention
becomes the Attention op in each form, its heads split and merged by the
op, and stays unfused where the op cannot take it."""
from __future__ import annotations

import unittest
from typing import Sequence

import numpy as np
from onnx import helper

from tests.converter_front.helpers import check_against_ort, initializer, make_model, rng

H = 16
SHAPE = [2, 5, H]


def node(op: str, inputs: Sequence[str], output: str, **attrs):
    return helper.make_node(op, list(inputs), [output], **attrs)


def scalars(**values: float) -> list:
    return [initializer(name, np.array(value, np.float32)) for name, value in values.items()]


def affine() -> list:
    return [initializer("gamma", rng(1).uniform(0.5, 1.5, H).astype(np.float32)),
            initializer("beta", rng(2).normal(0, 0.1, H).astype(np.float32))]


def torch_layer_norm(eps_outside: bool = False, var_axis: int = -1, mean_axis: int = -1,
                     square: str = "Pow", reciprocal: bool = False) -> tuple[list, list]:
    nodes = [node("ReduceMean", ["x"], "mean", axes=[mean_axis]),
             node("Sub", ["x", "mean"], "d")]
    nodes.append(node("Pow", ["d", "two"], "sq") if square == "Pow"
                 else node("Mul", ["d", "d"], "sq"))
    nodes.append(node("ReduceMean", ["sq"], "var", axes=[var_axis]))
    if eps_outside:
        nodes += [node("Sqrt", ["var"], "root0"), node("Add", ["root0", "eps"], "root")]
    else:
        nodes += [node("Add", ["var", "eps"], "ve"), node("Sqrt", ["ve"], "root")]
    if reciprocal:
        nodes += [node("Reciprocal", ["root"], "inv"), node("Mul", ["d", "inv"], "n")]
    else:
        nodes.append(node("Div", ["d", "root"], "n"))
    nodes += [node("Mul", ["n", "gamma"], "ng"), node("Add", ["ng", "beta"], "y")]
    return nodes, scalars(two=2.0, eps=1e-5) + affine()


def tf_layer_norm() -> tuple[list, list]:
    nodes = [node("ReduceMean", ["x"], "mean", axes=[2]), node("Sub", ["x", "mean"], "d"),
             node("Mul", ["d", "d"], "sq"), node("ReduceMean", ["sq"], "var", axes=[2]),
             node("Add", ["var", "eps"], "ve"), node("Sqrt", ["ve"], "root"),
             node("Reciprocal", ["root"], "inv"), node("Mul", ["inv", "gamma"], "s"),
             node("Mul", ["x", "s"], "xs"), node("Mul", ["mean", "s"], "ms"),
             node("Sub", ["beta", "ms"], "shift"), node("Add", ["xs", "shift"], "y")]
    return nodes, scalars(eps=1e-3) + affine()


def gelu_erf(order: str = "x_first", divide: bool = True, erf_const: float = 2 ** 0.5
             ) -> tuple[list, list]:
    inner = node("Div", ["x", "k"], "e0") if divide else node("Mul", ["x", "k"], "e0")
    nodes = [inner, node("Erf", ["e0"], "e1"), node("Add", ["e1", "one"], "e2")]
    if order == "x_first":
        nodes += [node("Mul", ["x", "e2"], "e3"), node("Mul", ["e3", "half"], "y")]
    elif order == "half_x":
        nodes += [node("Mul", ["x", "half"], "hx"), node("Mul", ["hx", "e2"], "y")]
    else:
        nodes += [node("Mul", ["half", "e2"], "he"), node("Mul", ["x", "he"], "y")]
    k = erf_const if divide else 1 / erf_const
    return nodes, scalars(k=k, one=1.0, half=0.5)


def gelu_tanh(cube: str = "Pow", cubic: float = 0.044715) -> tuple[list, list]:
    if cube == "Pow":
        nodes = [node("Pow", ["x", "three"], "c")]
    else:
        nodes = [node("Mul", ["x", "x"], "x2"), node("Mul", ["x", "x2"], "c")]
    nodes += [node("Mul", ["c", "cubic"], "cc"), node("Add", ["x", "cc"], "t0"),
              node("Mul", ["t0", "k"], "t1"), node("Tanh", ["t1"], "t2"),
              node("Add", ["t2", "one"], "t3"), node("Mul", ["x", "half"], "hx"),
              node("Mul", ["hx", "t3"], "y")]
    return nodes, scalars(three=3.0, cubic=cubic, k=(2 / np.pi) ** 0.5, one=1.0, half=0.5)


def kind_of(op) -> str:
    """The op type, with the Unary type after a colon ("Unary:GELU")."""
    for arg in op.arg:
        if op.type == "Unary" and arg.name == "type":
            return f"Unary:{arg.s.decode()}"
    return op.type


class FusionTest(unittest.TestCase):
    def _convert(self, built: tuple[list, list], outputs: Sequence[str] = ("y",),
                 shape: Sequence[int] = SHAPE):
        nodes, inits = built
        model = make_model(nodes, {"x": shape}, {o: None for o in outputs}, inits)
        feeds = {"x": (rng(3).standard_normal(shape) * 2).astype(np.float32)}
        converted = check_against_ort(self, model, {"x": shape}, feeds=feeds,
                                      rtol=1e-4, atol=2e-5)
        return [kind_of(op) for op in converted.net_def.op], converted.log

    def assert_fused(self, built, op_type: str, log: str, **kwargs) -> None:
        types, lines = self._convert(built, **kwargs)
        self.assertEqual(types, [op_type], lines)
        self.assertIn(log, lines)

    def assert_unfused(self, built, op_type: str, log: str, **kwargs) -> None:
        types, lines = self._convert(built, **kwargs)
        self.assertNotIn(op_type, types)
        self.assertFalse([line for line in lines if log in line], lines)

    def test_layer_norm_pytorch_form(self):
        for square in ("Pow", "Mul"):
            for reciprocal in (False, True):
                with self.subTest(square=square, reciprocal=reciprocal):
                    self.assert_fused(torch_layer_norm(square=square, reciprocal=reciprocal),
                                      "LayerNorm", "fused 1 LayerNorm(s) (PyTorch form)")

    def test_layer_norm_tf2onnx_form(self):
        self.assert_fused(tf_layer_norm(), "LayerNorm", "fused 1 LayerNorm(s) (tf2onnx form)")

    def test_layer_norm_near_misses(self):
        cases = {"epsilon outside the square root": torch_layer_norm(eps_outside=True),
                 "mean over another axis": torch_layer_norm(mean_axis=1, var_axis=1),
                 "variance over another axis than the mean": torch_layer_norm(var_axis=1)}
        for label, built in cases.items():
            with self.subTest(label):
                self.assert_unfused(built, "LayerNorm", "LayerNorm(s)")
        with self.subTest("the variance is read outside the pattern"):
            self.assert_unfused(torch_layer_norm(), "LayerNorm", "LayerNorm(s)",
                                outputs=("y", "var"))

    def test_gelu_erf_forms(self):
        for order in ("x_first", "half_x", "half_first"):
            for divide in (True, False):
                with self.subTest(order=order, divide=divide):
                    self.assert_fused(gelu_erf(order, divide), "Unary:GELU",
                                      "fused 1 GELU(s) (Erf form)")

    def test_gelu_tanh_forms(self):
        for cube in ("Pow", "Mul"):
            with self.subTest(cube=cube):
                self.assert_fused(gelu_tanh(cube), "Unary:GELU_TANH", "fused 1 GELU(s) (tanh form)")

    def test_gelu_near_misses(self):
        with self.subTest("another divisor"):
            self.assert_unfused(gelu_erf(erf_const=1.5), "Unary:GELU", "GELU(s)")
        with self.subTest("another cubic coefficient"):
            self.assert_unfused(gelu_tanh(cubic=0.05), "Unary:GELU_TANH", "GELU(s)")
        with self.subTest("the Erf is read outside the pattern"):
            self.assert_unfused(gelu_erf(), "Unary:GELU", "GELU(s)", outputs=("y", "e1"))


def attention(mask: str, einsum: bool) -> tuple[list, list, dict]:
    """Self-attention of x [1, 4 heads, 6, 8] on itself."""
    nodes = []
    if einsum:
        nodes.append(node("Einsum", ["x", "x"], "s0", equation="bnqd,bnkd->bnqk"))
    else:
        nodes += [node("Transpose", ["x"], "kt", perm=[0, 1, 3, 2]),
                  node("MatMul", ["x", "kt"], "s0")]
    nodes.append(node("Div", ["s0", "scale"], "s1"))
    if mask == "additive":
        nodes.append(node("Add", ["s1", "m"], "s2"))
    elif mask == "boolean":
        nodes += [node("Greater", ["m", "zero"], "keep"),
                  node("Where", ["keep", "s1", "low"], "s2")]
    else:
        nodes.append(node("Identity", ["s1"], "s2"))
    nodes.append(node("Softmax", ["s2"], "p", axis=-1))
    nodes.append(node("Einsum", ["p", "x"], "y", equation="bnqk,bnkd->bnqd") if einsum
                 else node("MatMul", ["p", "x"], "y"))
    inits = scalars(scale=8 ** 0.5, zero=0.0, low=-1e9)
    inputs = {"x": [1, 4, 6, 8]}
    if mask != "none":
        inputs["m"] = [1, 1, 1, 6]
    return nodes, inits, inputs


def merged_heads(guard: bool) -> tuple[list, list, dict]:
    """Self-attention of x [1, 6, 32] split into 4 heads the PyTorch
    exporter's way, with an additive mask [1, 1, 6, 6] and, with `guard`,
    the IsNaN guard after the Softmax."""
    split = initializer("split", np.array([1, 6, 4, 8], np.int64))
    merge = initializer("merge", np.array([1, 6, 32], np.int64))
    nodes = [node("Reshape", ["x", "split"], "q0"),
             node("Transpose", ["q0"], "q", perm=[0, 2, 1, 3]),
             node("Reshape", ["x", "split"], "k0"),
             node("Transpose", ["k0"], "kt", perm=[0, 2, 3, 1]),
             node("Reshape", ["x", "split"], "v0"),
             node("Transpose", ["v0"], "v", perm=[0, 2, 1, 3]),
             node("MatMul", ["q", "kt"], "s0"), node("Div", ["s0", "scale"], "s1"),
             node("Add", ["s1", "m"], "s2"), node("Softmax", ["s2"], "p0", axis=-1)]
    if guard:
        nodes += [node("IsNaN", ["p0"], "nan"), node("Where", ["nan", "zero", "p0"], "p")]
    else:
        nodes.append(node("Identity", ["p0"], "p"))
    nodes += [node("MatMul", ["p", "v"], "c0"), node("Transpose", ["c0"], "c", perm=[0, 2, 1, 3]),
              node("Reshape", ["c", "merge"], "y")]
    return nodes, scalars(scale=8 ** 0.5, zero=0.0) + [split, merge], {"x": [1, 6, 32],
                                                                       "m": [1, 1, 6, 6]}


def attention_args(op) -> dict:
    return {a.name: (list(a.ints) or a.s.decode() or a.f or a.i) for a in op.arg}


class AttentionTest(unittest.TestCase):
    def _check(self, nodes, inits, inputs, outputs=("y",), feeds=None):
        model = make_model(nodes, inputs, {o: None for o in outputs}, inits)
        feeds = feeds or {name: rng(i).standard_normal(shape).astype(np.float32)
                          for i, (name, shape) in enumerate(inputs.items())}
        converted = check_against_ort(self, model, inputs, feeds=feeds)
        return converted, [op.type for op in converted.net_def.op]

    def test_fused_per_form(self):
        for mask in ("none", "additive", "boolean"):
            for einsum in (False, True):
                with self.subTest(mask=mask, einsum=einsum):
                    converted, types = self._check(*attention(mask, einsum))
                    kind = f"{mask} mask" if mask != "none" else "no mask"
                    kind += ", Einsum" if einsum else ""
                    self.assertIn(f"fused 1 attention(s) ({kind})", converted.log)
                    self.assertEqual([t for t in types if t != "Compare"], ["Attention"], types)
                    args = attention_args(converted.net_def.op[-1])
                    self.assertEqual(args["layouts"], [0, 0, 0, 0])
                    self.assertAlmostEqual(args["scale"], 8 ** -0.5, places=6)
                    if mask == "boolean":
                        self.assertEqual(args["mask"], "keep_nonzero")
                        self.assertEqual(args["fill"], -1e9)

    def test_heads_split_and_merged_by_the_op(self):
        converted, types = self._check(*merged_heads(guard=False))
        self.assertEqual(types, ["Attention"])
        args = attention_args(converted.net_def.op[0])
        self.assertEqual((args["layouts"], args["heads"]), ([1, 1, 1, 1], 4))

    def test_fully_masked_rows_behind_the_nan_guard(self):
        # Rows 1 and 4 mask every key with -inf: the guard turns their NaNs
        # into zeros, and so does the op.
        nodes, inits, inputs = merged_heads(guard=True)
        mask = np.where(rng(5).uniform(size=(1, 1, 6, 6)) < 0.3, -np.inf, 0).astype(np.float32)
        mask[..., [1, 4], :] = -np.inf
        feeds = {"x": rng(6).standard_normal((1, 6, 32)).astype(np.float32), "m": mask}
        converted, types = self._check(nodes, inits, inputs, feeds=feeds)
        self.assertEqual(types, ["Attention"])
        self.assertIn("fused 1 attention(s) (additive mask)", converted.log)

    def test_scores_read_elsewhere_stay_unfused(self):
        nodes, inits, inputs = merged_heads(guard=False)
        converted, types = self._check(nodes, inits, inputs, outputs=("y", "s2"))
        self.assertIn("found 1 attention(s) (additive mask), left unfused", converted.log)
        self.assertNotIn("Attention", types)
        self.assertIn("Softmax", types)

    @staticmethod
    def _quantized(pairs: Sequence[tuple[str, str]]) -> tuple[list, list, dict]:
        """attention("none") with a QuantizeLinear -> DequantizeLinear pair
        of quantizer `quant` after each tensor `source` (quant, source): the
        pair reads it and its readers read the pair's output."""
        nodes, inits, inputs = attention("none", False)
        for quant, source in pairs:
            for n in nodes:
                n.input[:] = [f"{source}_fq" if name == source else name for name in n.input]
            at = [n.output[0] for n in nodes].index(source) + 1
            nodes[at:at] = [
                node("QuantizeLinear", [source, f"{quant}_s", f"{quant}_z"], f"{source}_q"),
                node("DequantizeLinear", [f"{source}_q", f"{quant}_s", f"{quant}_z"],
                     f"{source}_fq")]
        inits += [initializer("u8_s", np.array(0.05, np.float32)),
                  initializer("u8_z", np.array(128, np.uint8)),
                  initializer("p_s", np.array(1 / 255, np.float32)),
                  initializer("p_z", np.array(0, np.uint8)),
                  initializer("i8_s", np.array(0.02, np.float32)),
                  initializer("i8_z", np.array(-3, np.int8))]
        return nodes, inits, inputs

    def test_fake_quantized_softmax_is_fused(self):
        # A QDQ model's pairs on the Softmax's input (after the scale) and
        # output become the op's scores_quant and probs_quant.
        for scores, probs in (("u8", "p"), ("i8", None), (None, "p")):
            with self.subTest(scores=scores, probs=probs):
                pairs = [(q, t) for q, t in ((scores, "s2"), (probs, "p")) if q]
                nodes, inits, inputs = self._quantized(pairs)
                model = make_model(nodes, inputs, {"y": None}, inits)
                converted = check_against_ort(self, model, inputs, atol=1e-4)
                self.assertIn("fused 1 attention(s) (no mask, fake-quantized softmax)",
                              converted.log)
                self.assertEqual([op.type for op in converted.net_def.op], ["Attention"])
                args = {a.name: list(a.floats) for a in converted.net_def.op[0].arg if a.floats}
                expected = {"u8": [0.05, 128, 0, 255], "i8": [0.02, -3, -128, 127]}
                if scores:
                    np.testing.assert_allclose(args["scores_quant"], expected[scores], rtol=1e-6)
                else:
                    self.assertNotIn("scores_quant", args)
                if probs:
                    np.testing.assert_allclose(args["probs_quant"], [1 / 255, 0, 0, 255],
                                               rtol=1e-6)
                else:
                    self.assertNotIn("probs_quant", args)

    def test_quantized_scores_elsewhere_stay_unfused(self):
        # Before the scale the op has no place for the quantization.
        nodes, inits, inputs = self._quantized([("u8", "s0")])
        model = make_model(nodes, inputs, {"y": None}, inits)
        converted = check_against_ort(self, model, inputs, atol=1e-4)
        self.assertIn("found 1 attention(s) (no mask), left unfused", converted.log)

    def test_log_softmax_is_no_attention(self):
        nodes = [node("Transpose", ["x"], "kt", perm=[0, 1, 3, 2]),
                 node("MatMul", ["x", "kt"], "s"), node("LogSoftmax", ["s"], "p", axis=-1),
                 node("MatMul", ["p", "x"], "y")]
        model = make_model(nodes, {"x": [1, 2, 3, 4]}, {"y": None})
        converted = check_against_ort(self, model, {"x": [1, 2, 3, 4]})
        self.assertFalse([line for line in converted.log if "attention" in line])


if __name__ == "__main__":
    unittest.main()
