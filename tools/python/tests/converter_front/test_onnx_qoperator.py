"""onnxruntime's QOperator format (quantize_static with
QuantFormat.QOperator) on a model with LeakyRelu, Sigmoid, Concat,
GlobalAveragePool and Gemm: the com.microsoft QLinearLeakyRelu,
QLinearSigmoid, QLinearConcat, QLinearGlobalAveragePool and QGemm, each the
float op on dequantized values followed by its output's rounding and
saturation. Compared with onnxruntime on the same model, on the numpy
runner and through the engine (mace_run)."""
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

SHAPE = [1, 3, 8, 8]
MICROSOFT = {"QLinearLeakyRelu", "QLinearSigmoid", "QLinearConcat", "QLinearGlobalAveragePool",
             "QGemm"}


def float_model() -> onnx.ModelProto:
    g = rng(50)

    def const(name, shape, scale=0.3):
        return numpy_helper.from_array((g.standard_normal(shape) * scale).astype(np.float32),
                                       name)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("LeakyRelu", ["c1"], ["l1"], alpha=0.1),
             helper.make_node("Conv", ["x", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Sigmoid", ["c2"], ["s2"]),
             helper.make_node("Concat", ["l1", "s2"], ["cat"], axis=1),
             helper.make_node("GlobalAveragePool", ["cat"], ["gap"]),
             helper.make_node("Flatten", ["gap"], ["flat"]),
             helper.make_node("Gemm", ["flat", "fc", "fcb"], ["y"], transB=1)]
    inits = [const("w1", (6, 3, 3, 3)), const("b1", (6,)), const("w2", (4, 3, 3, 3)),
             const("b2", (4,)), const("fc", (5, 10)), const("fcb", (5,))]
    graph = helper.make_graph(nodes, "qop", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, SHAPE)], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [1, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def qoperator_model() -> onnx.ModelProto:
    from onnxruntime import quantization as q

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            g = rng(51)
            self.feeds = iter([{"x": g.standard_normal(SHAPE).astype(np.float32)}
                               for _ in range(8)])

        def get_next(self):
            return next(self.feeds, None)

    logging.disable(logging.WARNING)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            source, target = Path(tmp) / "f.onnx", Path(tmp) / "q.onnx"
            onnx.save(float_model(), str(source))
            q.quantize_static(str(source), str(target), Reader(),
                              quant_format=q.QuantFormat.QOperator,
                              activation_type=q.QuantType.QUInt8,
                              weight_type=q.QuantType.QInt8, per_channel=True)
            return onnx.load(str(target))
    finally:
        logging.disable(logging.NOTSET)


class QOperatorTest(unittest.TestCase):
    def test_numpy_runner_and_engine(self):
        model = qoperator_model()
        types = {n.op_type for n in model.graph.node}
        self.assertTrue(MICROSOFT <= types, types)
        x = {"x": rng(52).standard_normal(SHAPE).astype(np.float32)}
        want = ort_run(model, x)[0]
        converted = convert_model(model, {"x": SHAPE}, ["y"], runtime="cpu")
        got = run(converted.net_def, converted.weights, x)["y"]
        self.assertGreater(cosine(got, want), 0.9999)
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
        engine = run_converted(self, converted, x)["y"].reshape(want.shape)
        self.assertGreater(cosine(engine, want), 0.9999)


if __name__ == "__main__":
    unittest.main()
