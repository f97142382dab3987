"""QuantizeLinear and DequantizeLinear with constant scales in a float
conversion: an inner QuantizeLinear -> DequantizeLinear pair becomes a fake
quantization (it rounds and saturates in float), and a QuantizeLinear whose
integers leave the graph or feed another op, and a DequantizeLinear of
integers from outside such a pair, compute; all exactly as ONNX Runtime
does, on the numpy runner and through the engine (mace_run)."""
import unittest

import numpy as np
from onnx import TensorProto, helper

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, initializer, ort_run, rng
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN

U8, F32 = TensorProto.UINT8, TensorProto.FLOAT
_INITS = [initializer("s", np.array(0.1, np.float32)), initializer("z", np.array(10, np.uint8))]


def _model(nodes, inputs, outputs):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, t, [2, 3, 4]) for n, t in inputs],
        [helper.make_tensor_value_info(n, t, [2, 3, 4]) for n, t in outputs], _INITS)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


class ConstantScaleBoundaryTest(unittest.TestCase):
    def _check(self, model, feeds, op_types):
        outputs = [info.name for info in model.graph.output]
        converted = convert_model(model, {n: v.shape for n, v in feeds.items()}, outputs,
                                  runtime="cpu")
        self.assertEqual([op.type for op in converted.net_def.op], op_types)
        expected = dict(zip(outputs, ort_run(model, feeds)))
        floats = {name: value.astype(np.float32) for name, value in feeds.items()}
        got = run(converted.net_def, converted.weights, floats)
        for name, want in expected.items():
            np.testing.assert_array_equal(got[name], want.astype(np.float32), err_msg=name)
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
        engine = run_converted(self, converted, floats)
        for name, want in expected.items():
            np.testing.assert_array_equal(engine[name].reshape(want.shape),
                                          want.astype(np.float32), err_msg=f"{name} (mace_run)")

    def test_quantized_graph_output(self):
        x = (rng(60).standard_normal((2, 3, 4)) * 10).astype(np.float32)
        x[0, 0, :] = [0.05, 0.15, -0.25, 30.0]   # ties to even, saturation at 255
        x[1, 0, 0] = -5.0                         # saturation at 0
        model = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
                       [("x", F32)], [("y", U8)])
        self._check(model, {"x": x}, ["QuantizeLinear"])

    def test_dequantized_graph_input(self):
        q = rng(61).integers(0, 256, (2, 3, 4)).astype(np.uint8)
        q[0, 0, :2] = [0, 255]
        model = _model([helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
                       [("q", U8)], [("y", F32)])
        self._check(model, {"q": q}, ["DequantizeLinear"])

    def test_quantized_value_also_read_as_integers(self):
        # q is both an output and dequantized: neither node may be skipped.
        x = (rng(62).standard_normal((2, 3, 4)) * 10).astype(np.float32)
        model = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
                       [("x", F32)], [("q", U8), ("y", F32)])
        self._check(model, {"x": x}, ["QuantizeLinear", "DequantizeLinear"])

    def test_pair_with_other_dequantization_parameters_computes(self):
        # Quantizing with one scale or zero point and dequantizing with
        # another rescales the value: no Identity, the integers as ONNX
        # Runtime computes them.
        x = (rng(64).standard_normal((2, 3, 4)) * 5).astype(np.float32)
        extra = [initializer("s2", np.array(0.25, np.float32)),
                 initializer("z2", np.array(3, np.uint8)),
                 initializer("sc", np.array(0.1, np.float32))]
        for scale, zero in (("s2", "z"), ("s", "z2"), ("s2", "z2"), ("sc", "z2")):
            with self.subTest(scale=scale, zero_point=zero):
                model = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                                helper.make_node("DequantizeLinear", ["q", scale, zero], ["d"]),
                                helper.make_node("Relu", ["d"], ["y"])],
                               [("x", F32)], [("y", F32)])
                model.graph.initializer.extend(extra)
                self._check(model, {"x": x}, ["QuantizeLinear", "DequantizeLinear",
                                              "Activation"])

    def test_pair_with_equal_parameters_in_other_tensors(self):
        # The same scale and zero point held by other tensors (and the zero
        # point left out where it is 0) still make an inner pair.
        x = (rng(65).standard_normal((2, 3, 4)) * 10).astype(np.float32)
        model = _model([helper.make_node("QuantizeLinear", ["x", "s", "zero"], ["q"]),
                        helper.make_node("DequantizeLinear", ["q", "s_copy"], ["d"]),
                        helper.make_node("Relu", ["d"], ["y"])],
                       [("x", F32)], [("y", F32)])
        model.graph.initializer.extend([initializer("s_copy", np.array(0.1, np.float32)),
                                        initializer("zero", np.array(0, np.uint8))])
        # One QuantizeLinear with dequantize: the pair in one op.
        self._check(model, {"x": x}, ["QuantizeLinear", "Activation"])

    def test_inner_pair_rounds_and_saturates(self):
        # Dropping the pair would drop the rounding and the saturation at
        # -1.0 and 24.5: the ReLU an exporter folds into a zero point.
        x = rng(63).uniform(-3, 30, (2, 3, 4)).astype(np.float32)
        x[0, 0, :3] = [0.05, 0.15, -0.25]         # ties to even
        model = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"]),
                        helper.make_node("Relu", ["d"], ["y"])],
                       [("x", F32)], [("y", F32)])
        # One QuantizeLinear with dequantize: the pair in one op.
        self._check(model, {"x": x}, ["QuantizeLinear", "Activation"])
        converted = convert_model(model, {"x": [2, 3, 4]}, ["y"], runtime="cpu")
        self.assertTrue(any("QDQ" in line for line in converted.log), converted.log)

    def test_run_time_qlinear_of_a_skipped_quantize_is_refused(self):
        # The skipped QuantizeLinear carries dequantized values, which a
        # QLinearMatMul with run-time scales would dequantize again.
        names = ["q", "s", "z", "b", "bs", "z", "bs", "z"]
        graph = helper.make_graph(
            [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("QLinearMatMul", names, ["y"])], "g",
            [helper.make_tensor_value_info("x", F32, [3, 4]),
             helper.make_tensor_value_info("b", U8, [4, 2]),
             helper.make_tensor_value_info("bs", F32, [])],
            [helper.make_tensor_value_info("y", U8, [3, 2])], _INITS)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        with self.assertRaisesRegex(ConversionError, "'q' holds dequantized values"):
            convert_model(model, {"x": [3, 4], "b": [4, 2], "bs": []}, ["y"])


if __name__ == "__main__":
    unittest.main()
