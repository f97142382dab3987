"""Import of onnxruntime's QOperator ops other than QLinearConv:
QLinearMatMul, and QLinearAdd and QLinearMul of the com.microsoft domain.
Small models built with onnx.helper run through the converter and mace_run
and are compared with onnxruntime on the same model: the share of output
values within one quantum (the output's scale) of onnxruntime's.

Needs the host mace_run (MACE_RUN, default bazel-bin/mace/tools/mace_run)."""
from __future__ import annotations

import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np
import onnx
from onnx import TensorProto, helper

from mace_converter.api import ConversionError
from mace_converter.progress import REPO
from mace_converter.quantize import graph_pass
from mace_converter.quantize.agreement import within_one_quantum
from mace_converter.quantize.graph_pass import DT_UINT8, QuantizeSettings, Uint8Kernel
from mace_tools import proto
from tests.converter_front.helpers import (HOST_HAS_VNNI, INT8_WEIGHT_MAX, convert_model, cosine,
                                           initializer, make_model, mace_run_outputs, rng)

MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))
OUT_SCALE, OUT_ZP = 0.05, 120     # of activations_model's output
SQUARE_SCALE = 0.3                 # of matmul_const_model's (a square)


def qmodel(nodes, inputs: dict, inits) -> onnx.ModelProto:
    """Float inputs, quantized on entry, one float output 'y'."""
    used = {name for node in nodes for name in node.input}
    inits = [init for init in inits if init.name in used]
    graph = helper.make_graph(
        nodes, "q", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
                     for n, s in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def scalars(prefix: str, scale: float, zero_point: int, dtype=np.uint8) -> list:
    return [initializer(f"{prefix}_s", np.array(scale, np.float32)),
            initializer(f"{prefix}_z", np.array(zero_point, dtype))]


def quantize(name: str, prefix: str) -> onnx.NodeProto:
    return helper.make_node("QuantizeLinear", [name, f"{prefix}_s", f"{prefix}_z"],
                            [f"{name}_q"])


def dequantize(name: str, prefix: str) -> onnx.NodeProto:
    return helper.make_node("DequantizeLinear", [name, f"{prefix}_s", f"{prefix}_z"], ["y"])


def linear(op_type: str, a: str, a_p: str, b: str, b_p: str, out: str, out_p: str,
           domain: str = "") -> onnx.NodeProto:
    return helper.make_node(op_type, [a, f"{a_p}_s", f"{a_p}_z", b, f"{b_p}_s", f"{b_p}_z",
                                      f"{out_p}_s", f"{out_p}_z"], [out], domain=domain)


def matmul_const_model(per_column: bool, with_add: bool = True) -> onnx.ModelProto:
    """x[5,16] -> Q -> QLinearMatMul(int8 B [16,8]) -> QLinearAdd(uint8
    constant row) -> QLinearMul(by itself) -> DQ -> y."""
    g = rng(21)
    b = g.integers(-INT8_WEIGHT_MAX, INT8_WEIGHT_MAX + 1, (16, 8)).astype(np.int8)
    b_scale = (g.uniform(0.006, 0.012, 8) if per_column else np.array(0.01)).astype(np.float32)
    inits = scalars("x", 2 / 255, 128) + scalars("m", 0.05, 128) + scalars("c", 0.01, 0) \
        + scalars("a", 0.06, 110) + scalars("y", SQUARE_SCALE, 0) + [
            initializer("B", b), initializer("B_s", b_scale),
            initializer("B_z", np.zeros(b_scale.shape, np.int8)),
            initializer("C", g.integers(0, 256, (8,)).astype(np.uint8))]
    nodes = [quantize("x", "x"), linear("QLinearMatMul", "x_q", "x", "B", "B", "m", "m")]
    if with_add:
        nodes += [linear("QLinearAdd", "m", "m", "C", "c", "a", "a", "com.microsoft"),
                  linear("QLinearMul", "a", "a", "a", "a", "p", "y", "com.microsoft"),
                  dequantize("p", "y")]
    else:
        nodes.append(helper.make_node("DequantizeLinear", ["m", "m_s", "m_z"], ["y"]))
    return qmodel(nodes, {"x": [5, 16]}, inits)


def activations_model() -> onnx.ModelProto:
    """u[2,3,5,6] @ v[2,3,6,4] (both quantized) -> QLinearAdd(broadcast w
    [4]) -> DQ -> y."""
    inits = scalars("u", 2 / 255, 128) + scalars("v", 2 / 255, 127) + scalars("w", 2 / 255, 128) \
        + scalars("m", 0.03, 125) + scalars("y", OUT_SCALE, OUT_ZP)
    nodes = [quantize("u", "u"), quantize("v", "v"), quantize("w", "w"),
             linear("QLinearMatMul", "u_q", "u", "v_q", "v", "m", "m"),
             linear("QLinearAdd", "m", "m", "w_q", "w", "s", "y", "com.microsoft"),
             dequantize("s", "y")]
    return qmodel(nodes, {"u": [2, 3, 5, 6], "v": [2, 3, 6, 4], "w": [4]}, inits)


def ort(model: onnx.ModelProto, feeds: dict) -> np.ndarray:
    import onnxruntime
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def mace_run(converted, feeds: dict) -> np.ndarray:
    return mace_run_outputs(MACE_RUN, converted, feeds, ["y"])["y"]


def feeds_for(model: onnx.ModelProto, count: int) -> list[dict]:
    g = rng(40)
    shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim]
              for i in model.graph.input}
    return [{n: g.uniform(-1, 1, s).astype(np.float32) for n, s in shapes.items()}
            for _ in range(count)]


def uint8_ops(converted) -> list[str]:
    return [op.type for op in converted.net_def.op
            if any(a.name == "T" and a.i == DT_UINT8 for a in op.arg)]


class ImportTest(unittest.TestCase):
    def test_float_import_matches_onnxruntime(self):
        """Without quantize: 1 the ops convert to float ones on dequantized
        values, each QLinear op's output rounded and saturated to its
        quantization (a fake quantization, as the input's QuantizeLinear)."""
        from mace_converter.numpy_runner import run
        model = matmul_const_model(per_column=True)
        converted = convert_model(model, {"x": [5, 16]}, ["y"])
        types = [op.type for op in converted.net_def.op]
        fake = ["QuantizeLinear"]   # with dequantize: the pair in one op
        # The first Eltwise is the bias Add, the second the square.
        self.assertEqual(types, fake + ["FullyConnected"] + fake + ["Eltwise"] + fake +
                         ["Eltwise"] + fake)
        for feeds in feeds_for(model, 2):
            got = run(converted.net_def, converted.weights, feeds)["y"]
            self.assertGreaterEqual(within_one_quantum(got, ort(model, feeds), SQUARE_SCALE),
                                    0.95)

    def test_records_the_models_quantization(self):
        model = matmul_const_model(per_column=True)
        graph_scales = {}
        original = graph_pass.quantize_graph

        def spy(graph, settings):
            graph_scales.update(settings.weight_scales)
            graph_scales["fixed"] = dict(settings.fixed)
            return original(graph, settings)

        with mock.patch.object(graph_pass, "quantize_graph", spy):
            convert_model(model, {"x": [5, 16]}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings())
        fixed = graph_scales.pop("fixed")
        self.assertEqual((fixed["m"].scale, fixed["m"].zero_point), (np.float32(0.05), 128))
        self.assertEqual((fixed["a"].zero_point, fixed["p"].zero_point), (110, 0))
        (scales,) = graph_scales.values()
        b_scale = next(i for i in model.graph.initializer if i.name == "B_s")
        np.testing.assert_array_equal(scales, onnx.numpy_helper.to_array(b_scale))

    def test_bad_nodes_name_the_node(self):
        model = matmul_const_model(per_column=True)
        for init in model.graph.initializer:
            if init.name == "B_s":
                init.CopyFrom(initializer("B_s", np.full(5, 0.01, np.float32)))
        with self.assertRaisesRegex(ConversionError,
                                    "QLinearMatMul node .*b_scale has 5 values"):
            convert_model(model, {"x": [5, 16]}, ["y"])
        model = matmul_const_model(per_column=False)
        for init in model.graph.initializer:
            if init.name == "a_s":
                init.CopyFrom(initializer("a_s", np.array(0.0, np.float32)))
        with self.assertRaisesRegex(ConversionError, "QLinearAdd node .*y_scale 'a_s' holds 0.0; "
                                                     "a scale must be finite"):
            convert_model(model, {"x": [5, 16]}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings())
        model.graph.node[2].domain = "com.example"
        model.opset_import.append(helper.make_opsetid("com.example", 1))
        with self.assertRaisesRegex(ConversionError, "op domain 'com.example'"):
            convert_model(model, {"x": [5, 16]}, ["y"])


@unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
class AgreementTest(unittest.TestCase):
    """MACE against onnxruntime on the same quantized model."""

    def check(self, model, inputs, minimum_share, scale):
        """Each output within 3 quanta of onnxruntime's, and at least
        `minimum_share` of them within one."""
        converted = convert_model(model, inputs, ["y"], data_type="uint8",
                                  quantize=QuantizeSettings())
        shares = []
        for feeds in feeds_for(model, 4):
            got, want = mace_run(converted, feeds), ort(model, feeds)
            shares.append(within_one_quantum(got, want, scale))
            self.assertEqual(within_one_quantum(got, want, 3 * scale), 1.0)
            self.assertGreater(cosine(got, want), 0.999)
        self.assertGreaterEqual(min(shares), minimum_share, shares)
        return converted, float(np.mean(shares))

    def test_matmul_add_mul_within_one_quantum(self):
        for per_column in (False, True):
            with self.subTest(per_column=per_column):
                # MACE runs the add and the square in float, without the
                # rounding of the intermediate tensors that onnxruntime
                # applies; the square doubles those errors.
                self.check(matmul_const_model(per_column), {"x": [5, 16]}, 0.9, SQUARE_SCALE)

    def test_activation_matmul_and_broadcast_add(self):
        self.check(activations_model(), {"u": [2, 3, 5, 6], "v": [2, 3, 6, 4], "w": [4]}, 0.95,
                   OUT_SCALE)

    def test_quantize_static_qoperator_model(self):
        """MatMul, Add, Mul and Relu quantized by onnxruntime's quantize_static
        (QOperator): QLinearMatMul, QLinearAdd and QLinearMul, the Relu
        folded into the last output range."""
        from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                              quantize_static)
        from mace_converter.quantize.agreement import output_scale
        g = rng(3)
        nodes = [helper.make_node("MatMul", ["x", "W"], ["m"]),
                 helper.make_node("Add", ["m", "x2"], ["a"]),
                 helper.make_node("Mul", ["a", "a"], ["p"]), helper.make_node("Relu", ["p"], ["y"])]
        inits = [initializer("W", g.normal(0, 0.3, (16, 8)).astype(np.float32))]
        source = make_model(nodes, {"x": [4, 16], "x2": [4, 8]}, {"y": None}, inits)
        calibration = feeds_for(source, 8)

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.feeds = iter(calibration)

            def get_next(self):
                return next(self.feeds, None)

        for per_channel in (False, True):
            with self.subTest(per_channel=per_channel), tempfile.TemporaryDirectory() as tmp:
                onnx.save(source, f"{tmp}/f.onnx")
                quantize_static(f"{tmp}/f.onnx", f"{tmp}/q.onnx", Reader(),
                                quant_format=QuantFormat.QOperator, per_channel=per_channel,
                                activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                                reduce_range=not HOST_HAS_VNNI)
                model = onnx.load(f"{tmp}/q.onnx")
                self.assertEqual([n.op_type for n in model.graph.node if "QLinear" in n.op_type],
                                 ["QLinearMatMul", "QLinearAdd", "QLinearMul"])
                self.check(model, {"x": [4, 16], "x2": [4, 8]}, 0.85,
                           output_scale(Path(tmp) / "q.onnx", "y"))

    def test_uint8_fully_connected_keeps_the_models_integers(self):
        """With FullyConnected in the uint8 table, the QLinearMatMul becomes
        a uint8 FullyConnected holding the model's int8 matrix, and its
        output equals onnxruntime's."""
        kernel = Uint8Kernel(weight=1, bias=2, per_channel=True)
        with mock.patch.dict(graph_pass.UINT8_KERNELS, {"FullyConnected": kernel}):
            for per_column in (False, True):
                with self.subTest(per_column=per_column):
                    model = matmul_const_model(per_column, with_add=False)
                    converted, share = self.check(model, {"x": [5, 16]}, 1.0, 0.05)
                    feeds = feeds_for(model, 1)[0]
                    np.testing.assert_array_equal(mace_run(converted, feeds), ort(model, feeds))
                    self.assertIn("FullyConnected", uint8_ops(converted))
                    weight = next(t for t in converted.net_def.tensors
                                  if t.data_type == proto.load().DT_INT8)
                    stored = np.frombuffer(converted.weights, np.int8, 128, weight.offset)
                    want = rng(21).integers(-INT8_WEIGHT_MAX, INT8_WEIGHT_MAX + 1, (16, 8))
                    np.testing.assert_array_equal(stored.reshape(8, 16), want.T)


if __name__ == "__main__":
    unittest.main()
