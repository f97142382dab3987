"""Dynamically quantized models (onnxruntime.quantization.quantize_dynamic:
DynamicQuantizeLinear, MatMulInteger, ConvInteger) and the com.microsoft
ops DynamicQuantizeMatMul and MatMulIntegerToFloat, against onnxruntime on
the numpy runner and through the engine (mace_run)."""
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
                 numpy_helper.from_array(np.full(6, 128, np.uint8), "bz2")]
        graph = helper.make_graph(
            nodes, "ms", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 16])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 6]),
             helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 6])], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                        helper.make_opsetid("com.microsoft", 1)])
        model.ir_version = 8
        x = {"a": g.standard_normal((3, 16)).astype(np.float32)}
        wants = dict(zip(["y", "z"], ort_run(model, x)))
        converted = convert_model(model, {"a": [3, 16]}, ["y", "z"], runtime="cpu")
        got = run(converted.net_def, converted.weights, x)
        for name, want in wants.items():
            self.assertGreater(cosine(got[name], want), 0.9999, name)
            np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-4, err_msg=name)


if __name__ == "__main__":
    unittest.main()
