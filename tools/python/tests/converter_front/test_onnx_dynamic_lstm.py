"""com.microsoft DynamicQuantizeLSTM: its int8 / uint8 weights, per
direction or per gate column, dequantized into the engine's float LSTM.
Equal to ONNX's float LSTM on the same dequantized weights; within the
activation rounding of onnxruntime's own kernel."""
import unittest

import numpy as np
from onnx import TensorProto, helper

from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, cosine, ort_run, rng

SEQ, BATCH, INPUT, HIDDEN, DIRS = 5, 2, 6, 4, 2


def _params(per_column: bool, dtype, seed: int):
    generator = rng(seed)
    low, high = (-128, 127) if dtype == np.int8 else (0, 255)
    shapes = {"W": (DIRS, INPUT, 4 * HIDDEN), "R": (DIRS, HIDDEN, 4 * HIDDEN)}
    params = {}
    for name, shape in shapes.items():
        params[name] = generator.integers(low, high + 1, shape).astype(dtype)
        scale_shape = (DIRS, 4 * HIDDEN) if per_column else (DIRS,)
        params[name + "_scale"] = generator.uniform(0.002, 0.02, scale_shape).astype(np.float32)
        middle = 0 if dtype == np.int8 else 128
        params[name + "_zero"] = generator.integers(middle - 16, middle + 16,
                                                    scale_shape).astype(dtype)
    params["B"] = generator.uniform(-0.5, 0.5, (DIRS, 8 * HIDDEN)).astype(np.float32)
    return params


def _dequantized(params, name):
    dirs = params[name].shape[0]
    scale = params[name + "_scale"].reshape(dirs, 1, -1).astype(np.float64)
    zero = params[name + "_zero"].reshape(dirs, 1, -1).astype(np.float64)
    return ((params[name] - zero) * scale).transpose(0, 2, 1).astype(np.float32)


def _model(params, op_type: str):
    if op_type == "LSTM":
        inits = {"W": _dequantized(params, "W"), "R": _dequantized(params, "R"), "B": params["B"]}
        inputs, domain = ["x", "W", "R", "B"], ""
    else:
        inits = dict(params)
        inputs = ["x", "W", "R", "B", "", "", "", "", "W_scale", "W_zero", "R_scale", "R_zero"]
        domain = "com.microsoft"
    node = helper.make_node(op_type, inputs, ["y", "h"], domain=domain,
                            direction="bidirectional", hidden_size=HIDDEN)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [SEQ, BATCH, INPUT])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [SEQ, DIRS, BATCH, HIDDEN]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, [DIRS, BATCH, HIDDEN])],
        [helper.make_tensor(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape,
                            v.tobytes(), raw=True) for n, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


class DynamicQuantizeLstmTest(unittest.TestCase):
    def test_dequantized_weights_and_onnxruntime(self):
        x = rng(3).uniform(-1, 1, (SEQ, BATCH, INPUT)).astype(np.float32)
        for index, (per_column, dtype) in enumerate(((False, np.int8), (True, np.int8),
                                                     (True, np.uint8))):
            with self.subTest(per_column=per_column, dtype=dtype.__name__):
                params = _params(per_column, dtype, index)
                model = _model(params, "DynamicQuantizeLSTM")
                converted = convert_model(model, {"x": list(x.shape)}, ["y", "h"])
                got = run(converted.net_def, converted.weights, {"x": x})
                # ONNX's LSTM on the dequantized weights, as onnxruntime runs it.
                exact = ort_run(_model(params, "LSTM"), {"x": x})
                for name, want in zip(("y", "h"), exact):
                    np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-6)
        # onnxruntime's kernel takes int8 weights with zero points 0 only.
        for index, per_column in enumerate((False, True)):
            with self.subTest(onnxruntime=True, per_column=per_column):
                params = _params(per_column, np.int8, 10 + index)
                params["W_zero"][...] = 0
                params["R_zero"][...] = 0
                model = _model(params, "DynamicQuantizeLSTM")
                converted = convert_model(model, {"x": list(x.shape)}, ["y", "h"])
                got = run(converted.net_def, converted.weights, {"x": x})
                for name, want in zip(("y", "h"), ort_run(model, {"x": x})):
                    self.assertGreater(cosine(got[name], want), 0.999, name)

    def test_a_scale_of_the_wrong_shape_is_refused(self):
        params = _params(False, np.int8, 0)
        params["W_scale"] = np.full((3,), 0.01, np.float32)
        from mace_converter.api import ConversionError
        with self.assertRaisesRegex(ConversionError, "scale of W has shape \\[3\\]"):
            convert_model(_model(params, "DynamicQuantizeLSTM"), {"x": [SEQ, BATCH, INPUT]},
                          ["y", "h"])


if __name__ == "__main__":
    unittest.main()
