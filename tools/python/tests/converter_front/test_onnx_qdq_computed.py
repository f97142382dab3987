"""QuantizeLinear and DequantizeLinear whose scale or zero point is computed
at run time: converted to the engine's float-domain ops, run by the numpy
runner and compared with ONNX's reference implementation, which they match
exactly (round half to even, saturation, per-axis and blocked scales)."""
import unittest

import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, rng

_NP = {TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8, TensorProto.INT16: np.int16,
       TensorProto.UINT16: np.uint16, TensorProto.FLOAT: np.float32}


def _model(op_type, x_type, y_type, x_shape, scale_shape, zero_type, opset=21, **attrs):
    inputs = [helper.make_tensor_value_info("x", x_type, x_shape),
              helper.make_tensor_value_info("s", TensorProto.FLOAT, scale_shape)]
    names = ["x", "s"]
    if zero_type:
        inputs.append(helper.make_tensor_value_info("z", zero_type, scale_shape))
        names.append("z")
    graph = helper.make_graph([helper.make_node(op_type, names, ["y"], **attrs)], "g", inputs,
                              [helper.make_tensor_value_info("y", y_type, x_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


class FloatDomainQdqTest(unittest.TestCase):
    def _check(self, model, feeds, op_types=None):
        shapes = {name: list(value.shape) for name, value in feeds.items()}
        converted = convert_model(model, shapes, ["y"])
        self.assertEqual([op.type for op in converted.net_def.op],
                         op_types or [model.graph.node[0].op_type])
        got = run(converted.net_def, converted.weights,
                  {name: value.astype(np.float32) for name, value in feeds.items()})["y"]
        want = ReferenceEvaluator(model).run(None, feeds)[0]
        np.testing.assert_array_equal(got, want.astype(np.float32))

    def test_quantize_types_and_groupings(self):
        r = rng(40)
        x = (r.standard_normal((2, 6, 3)) * 40).astype(np.float32)
        x[0, 0, :] = [0.5, 1.5, 2.5]   # ties go to even
        cases = [(TensorProto.UINT8, [], {}, np.float32(0.5)),
                 (TensorProto.INT8, [6], {"axis": 1}, None),
                 (TensorProto.INT16, [2, 6, 1], {"axis": 2, "block_size": 3}, None),
                 (TensorProto.UINT16, [2, 2, 3], {"axis": 1, "block_size": 4}, None)]
        for zero_type, scale_shape, attrs, scale in cases:
            with self.subTest(type=zero_type, **{k: str(v) for k, v in attrs.items()}):
                model = _model("QuantizeLinear", TensorProto.FLOAT, zero_type, [2, 6, 3],
                               scale_shape, zero_type, **attrs)
                s = np.asarray(scale if scale is not None else
                               r.uniform(0.05, 0.6, scale_shape), np.float32).reshape(scale_shape)
                z = np.full(scale_shape, 3, _NP[zero_type])
                self._check(model, {"x": x, "s": s, "z": z})

    def test_dequantize_per_axis(self):
        r = rng(41)
        x = r.integers(-128, 128, (3, 4)).astype(np.int8)
        model = _model("DequantizeLinear", TensorProto.INT8, TensorProto.FLOAT, [3, 4], [4],
                       TensorProto.INT8, axis=1)
        self._check(model, {"x": x, "s": r.uniform(0.01, 1, 4).astype(np.float32),
                            "z": r.integers(-5, 5, 4).astype(np.int8)})

    def test_qlinear_matmul_with_run_time_scales(self):
        r = rng(42)
        u8 = TensorProto.UINT8
        names = ["a", "as", "az", "b", "bs", "bz", "ys", "yz"]
        types = [u8, TensorProto.FLOAT, u8, u8, TensorProto.FLOAT, u8, TensorProto.FLOAT, u8]
        shapes = [[2, 4], [], [], [4, 3], [], [], [], []]
        graph = helper.make_graph(
            [helper.make_node("QLinearMatMul", names, ["y"])], "g",
            [helper.make_tensor_value_info(n, t, s) for n, t, s in zip(names, types, shapes)],
            [helper.make_tensor_value_info("y", u8, [2, 3])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        feeds = {"a": r.integers(0, 256, (2, 4)).astype(np.uint8),
                 "as": np.array(0.02, np.float32), "az": np.array(128, np.uint8),
                 "b": r.integers(0, 256, (4, 3)).astype(np.uint8),
                 "bs": np.array(0.03, np.float32), "bz": np.array(120, np.uint8),
                 "ys": np.array(0.5, np.float32), "yz": np.array(100, np.uint8)}
        self._check(model, feeds, ["DequantizeLinear", "DequantizeLinear", "MatMul",
                                   "QuantizeLinear"])

    def test_qlinear_conv_with_run_time_scales_and_bias(self):
        r = rng(43)
        u8, f32 = TensorProto.UINT8, TensorProto.FLOAT
        names = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"]
        types = [u8, f32, u8, u8, f32, u8, f32, u8, TensorProto.INT32]
        shapes = [[1, 2, 5, 5], [], [], [3, 2, 3, 3], [1], [1], [], [], [3]]
        graph = helper.make_graph(
            [helper.make_node("QLinearConv", names, ["y"], pads=[1, 1, 1, 1])], "g",
            [helper.make_tensor_value_info(n, t, s) for n, t, s in zip(names, types, shapes)],
            [helper.make_tensor_value_info("y", u8, [1, 3, 5, 5])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        feeds = {"x": r.integers(0, 256, (1, 2, 5, 5)).astype(np.uint8),
                 "xs": np.array(0.01, np.float32), "xz": np.array(128, np.uint8),
                 "w": r.integers(0, 256, (3, 2, 3, 3)).astype(np.uint8),
                 "ws": np.array([0.015], np.float32), "wz": np.array([124], np.uint8),
                 "ys": np.array(0.2, np.float32), "yz": np.array(128, np.uint8),
                 "b": np.array([500, -800, 0], np.int32)}
        self._check(model, feeds, ["DequantizeLinear", "DequantizeLinear", "Eltwise",
                                   "DequantizeLinear", "Conv2D", "QuantizeLinear"])


if __name__ == "__main__":
    unittest.main()
