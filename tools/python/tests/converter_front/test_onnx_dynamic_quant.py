"""Dynamically quantized models (onnxruntime.quantization.quantize_dynamic:
DynamicQuantizeLinear, MatMulInteger, ConvInteger) and the com.microsoft
ops DynamicQuantizeMatMul and MatMulIntegerToFloat, against onnxruntime on
the numpy runner and through the engine (mace_run): the products of
constant weights run as DynamicQuantizedFullyConnected and match
onnxruntime to float rounding; the rest runs in float emulation."""
from __future__ import annotations

import logging
import tempfile
import unittest
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, cosine, ort_run, rng
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN


def _float_model() -> onnx.ModelProto:
    """Conv -> Relu -> Flatten -> MatMul -> Add -> Relu -> MatMul over a
    [2, 3, 8, 8] input, and a [2, 5, 16] token input through two MatMuls
    (a projection of every token, as transformers have)."""
    g = rng(40)

    def const(name, shape, scale=0.3):
        return numpy_helper.from_array((g.standard_normal(shape) * scale).astype(np.float32),
                                       name)
    nodes = [helper.make_node("Conv", ["x", "w", "wb"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Flatten", ["r"], ["f"]),
             helper.make_node("MatMul", ["f", "m1"], ["h"]),
             helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["hr"]),
             helper.make_node("MatMul", ["hr", "m2"], ["y"]),
             helper.make_node("MatMul", ["t", "p1"], ["tp"]),
             helper.make_node("Tanh", ["tp"], ["tt"]),
             helper.make_node("MatMul", ["tt", "p2"], ["z"])]
    inits = [const("w", (4, 3, 3, 3)), const("wb", (4,)), const("m1", (256, 32), 0.1),
             const("b1", (32,)), const("m2", (32, 10)), const("p1", (16, 24)),
             const("p2", (24, 8))]
    graph = helper.make_graph(
        nodes, "dyn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8]),
                       helper.make_tensor_value_info("t", TensorProto.FLOAT, [2, 5, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 5, 8])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def dynamic_model(per_channel: bool, int8_weights: bool) -> onnx.ModelProto:
    """int8 weights for the MatMuls only (onnxruntime has no ConvInteger of
    int8 weights), or uint8 weights for the MatMuls and the Conv."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    logging.disable(logging.WARNING)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            source, target = Path(tmp) / "f.onnx", Path(tmp) / "q.onnx"
            onnx.save(_float_model(), str(source))
            quantize_dynamic(str(source), str(target),
                             weight_type=QuantType.QInt8 if int8_weights else QuantType.QUInt8,
                             per_channel=per_channel,
                             op_types_to_quantize=["MatMul"] + ([] if int8_weights else ["Conv"]))
            return onnx.load(str(target))
    finally:
        logging.disable(logging.NOTSET)


def feeds() -> dict[str, np.ndarray]:
    g = rng(41)
    return {"x": g.standard_normal((2, 3, 8, 8)).astype(np.float32),
            "t": g.standard_normal((2, 5, 16)).astype(np.float32)}


INPUTS = {"x": [2, 3, 8, 8], "t": [2, 5, 16]}


def integer_ops(converted) -> list:
    return [op for op in converted.net_def.op if op.type == "DynamicQuantizedFullyConnected"]


def arg(op, name: str):
    for argument in op.arg:
        if argument.name == name:
            return list(argument.ints) or argument.i
    return None


def expect_rounding_level(test: unittest.TestCase, got: np.ndarray, want: np.ndarray,
                          name: str) -> None:
    """Equal but for float rounding of the last steps: one uint8 step of a
    different rounding would be about 1e-3 of the largest output."""
    error = float(np.abs(got.reshape(want.shape) - want).max())
    test.assertLessEqual(error, 1e-5 * float(np.abs(want).max()), name)


class DynamicQuantizationTest(unittest.TestCase):
    def check(self, model: onnx.ModelProto, engine: bool) -> None:
        x = feeds()
        wants = dict(zip(["y", "z"], ort_run(model, x)))
        converted = convert_model(model, INPUTS, ["y", "z"], runtime="cpu")
        got = run(converted.net_def, converted.weights, x)
        if engine:
            self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
            got = run_converted(self, converted, x)
        for name, want in wants.items():
            value = got[name].reshape(want.shape)
            self.assertGreater(cosine(value, want), 0.9999, name)
            np.testing.assert_allclose(value, want, rtol=1e-3, atol=2e-3 * np.abs(want).max(),
                                       err_msg=name)

    def test_quantize_dynamic_models(self):
        for per_channel in (False, True):
            for int8_weights in (False, True):
                model = dynamic_model(per_channel, int8_weights)
                types = {n.op_type for n in model.graph.node}
                expected = {"DynamicQuantizeLinear", "MatMulInteger"} | \
                    (set() if int8_weights else {"ConvInteger"})
                self.assertTrue(expected <= types, types)
                with self.subTest(per_channel=per_channel, int8_weights=int8_weights):
                    self.check(model, engine=False)

    def test_engine(self):
        for int8_weights in (False, True):
            with self.subTest(int8_weights=int8_weights):
                self.check(dynamic_model(True, int8_weights), engine=True)

    def test_integer_path(self):
        """Per-tensor and per-channel, uint8 and int8 weights, rank-2 and
        rank-3 activations, with and without bias: four integer ops, equal
        to onnxruntime but for float rounding, on the numpy reference and
        through the engine. uint8 weights keep their zero points (the
        engine corrects for them); the ConvInteger stays float."""
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
        x = feeds()
        for per_channel in (False, True):
            for int8_weights in (False, True):
                with self.subTest(per_channel=per_channel, int8_weights=int8_weights):
                    model = dynamic_model(per_channel, int8_weights)
                    wants = dict(zip(["y", "z"], ort_run(model, x)))
                    converted = convert_model(model, INPUTS, ["y", "z"], runtime="cpu")
                    ops = integer_ops(converted)
                    self.assertEqual(len(ops), 4)
                    self.assertTrue(all(arg(op, "per_tensor") == 1 for op in ops))
                    with_zeros = [op for op in ops if arg(op, "weight_zero_points")]
                    self.assertEqual(len(with_zeros), 0 if int8_weights else 4)
                    log = [line for line in converted.log if "MatMulInteger" in line]
                    self.assertEqual(len(log), 4, log)
                    self.assertTrue(all("integer DynamicQuantizedFullyConnected" in line
                                        for line in log), log)
                    self.assertTrue(any("(+ Cast, Mul, Add)" in line for line in log), log)
                    emulated = [line for line in converted.log if "float emulation" in line]
                    self.assertEqual(len(emulated), 0 if int8_weights else 1, emulated)
                    reference = run(converted.net_def, converted.weights, x)
                    engine = run_converted(self, converted, x)
                    for name, want in wants.items():
                        expect_rounding_level(self, reference[name], want, name)
                        expect_rounding_level(self, engine[name], want, name)

    def test_engine_edge_inputs(self):
        """All zeros, one sign, a single row, through the engine."""
        model = dynamic_model(True, False)
        g = rng(43)
        cases = {"zeros": {"x": np.zeros((2, 3, 8, 8), np.float32),
                           "t": np.zeros((2, 5, 16), np.float32)},
                 "positive": {"x": np.abs(g.standard_normal((2, 3, 8, 8))).astype(np.float32),
                              "t": np.abs(g.standard_normal((2, 5, 16))).astype(np.float32)},
                 "negative": {"x": -np.abs(g.standard_normal((2, 3, 8, 8))).astype(np.float32),
                              "t": -np.abs(g.standard_normal((2, 5, 16))).astype(np.float32)}}
        converted = convert_model(model, INPUTS, ["y", "z"], runtime="cpu")
        for case, x in cases.items():
            with self.subTest(case=case):
                wants = dict(zip(["y", "z"], ort_run(model, x)))
                got = run_converted(self, converted, x)
                for name, want in wants.items():
                    if not np.abs(want).max():
                        np.testing.assert_array_equal(got[name].reshape(want.shape), want)
                        continue
                    expect_rounding_level(self, got[name], want, name)

    def test_float_emulation_for_variable_b(self):
        """MatMulInteger of two computed operands stays float, and the log
        says why."""
        nodes = [helper.make_node("DynamicQuantizeLinear", ["a"], ["q", "qs", "qz"]),
                 helper.make_node("DynamicQuantizeLinear", ["b"], ["r", "rs", "rz"]),
                 helper.make_node("MatMulInteger", ["q", "r", "qz", "rz"], ["p"]),
                 helper.make_node("Cast", ["p"], ["y"], to=TensorProto.FLOAT)]
        graph = helper.make_graph(
            nodes, "var", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 8]),
                           helper.make_tensor_value_info("b", TensorProto.FLOAT, [8, 4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        g = rng(44)
        x = {"a": g.standard_normal((3, 8)).astype(np.float32),
             "b": g.standard_normal((8, 4)).astype(np.float32)}
        converted = convert_model(model, {"a": [3, 8], "b": [8, 4]}, ["y"], runtime="cpu")
        self.assertEqual(integer_ops(converted), [])
        self.assertTrue(any(line.startswith("MatMulInteger '") and
                            line.endswith("': float emulation (B is not a constant)")
                            for line in converted.log), converted.log)
        got = run(converted.net_def, converted.weights, x)["y"]
        np.testing.assert_array_equal(got, ort_run(model, x)[0])

    def test_microsoft_ops(self):
        g = rng(42)
        b = g.integers(-127, 128, (16, 6)).astype(np.int8)
        nodes = [helper.make_node("DynamicQuantizeMatMul", ["a", "b", "bs", "bz", "bias"],
                                  ["y"], domain="com.microsoft"),
                 helper.make_node("DynamicQuantizeLinear", ["a"], ["q", "qs", "qz"]),
                 helper.make_node("MatMulIntegerToFloat", ["q", "b2", "qs", "bs", "qz", "bz2"],
                                  ["z"], domain="com.microsoft")]
        inits = [numpy_helper.from_array(b, "b"),
                 numpy_helper.from_array((g.uniform(0.01, 0.02, 6)).astype(np.float32), "bs"),
                 numpy_helper.from_array(np.zeros(6, np.int8), "bz"),
                 numpy_helper.from_array(g.standard_normal(6).astype(np.float32), "bias"),
                 numpy_helper.from_array(g.integers(0, 256, (16, 6)).astype(np.uint8), "b2"),
                 numpy_helper.from_array(np.array([0, 40, 128, 200, 255, 7], np.uint8), "bz2")]
        graph = helper.make_graph(
            nodes, "ms", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 16])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 6]),
             helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3, 6])], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                        helper.make_opsetid("com.microsoft", 1)])
        model.ir_version = 8
        x = {"a": g.standard_normal((2, 3, 16)).astype(np.float32)}
        wants = dict(zip(["y", "z"], ort_run(model, x)))
        converted = convert_model(model, {"a": [2, 3, 16]}, ["y", "z"], runtime="cpu")
        ops = integer_ops(converted)
        self.assertEqual(len(ops), 2)
        self.assertEqual(sorted(len(arg(op, "weight_zero_points") or []) for op in ops), [0, 6])
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
        for got in (run(converted.net_def, converted.weights, x),
                    run_converted(self, converted, x)):
            for name, want in wants.items():
                expect_rounding_level(self, got[name], want, name)


if __name__ == "__main__":
    unittest.main()
