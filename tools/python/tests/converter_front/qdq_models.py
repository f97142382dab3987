"""Small float models with the features real QDQ exports have, quantized by
onnxruntime's quantize_static (QDQ format, per-channel int8 weights) with
int8 or uint8 activations: the input normalized inside the graph
(ReduceMin, ReduceMax, Sub, Div, Pow), Conv with BatchNormalization after
it, ReLU and Clip that the quantizer folds into the quantization range, a
residual Add, pooling, and an L2-normalized output. Weights come from a
fixed seed."""
from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPE = (1, 3, 16, 16)
FEATURES = ("normalize", "batchnorm", "relu", "clip", "residual", "l2norm")


class _Builder:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list = []
        self.inits: list = []
        self.count = 0

    def name(self, base: str) -> str:
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, base: str, value: np.ndarray) -> str:
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op: str, inputs: Sequence[str], **attrs) -> str:
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, list(inputs), [out], name=out, **attrs))
        return out

    def conv(self, x: str, cin: int, cout: int, k: int, batchnorm: bool, stride: int = 1) -> str:
        w = self.rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k))
        b = self.rng.standard_normal(cout) * 0.1
        y = self.node("Conv", [x, self.const("w", w.astype(np.float32)),
                               self.const("b", b.astype(np.float32))],
                      pads=[k // 2] * 4, strides=[stride, stride])
        if batchnorm:
            params = [self.rng.uniform(0.5, 1.5, cout), self.rng.standard_normal(cout) * 0.2,
                      self.rng.standard_normal(cout) * 0.2, self.rng.uniform(0.5, 2.0, cout)]
            y = self.node("BatchNormalization",
                          [y] + [self.const("bn", p.astype(np.float32)) for p in params],
                          epsilon=1e-5)
        return y

    def activation(self, x: str, kind: str) -> str:
        if kind == "relu":
            return self.node("Relu", [x])
        if kind == "clip":
            return self.node("Clip", [x, self.const("lo", np.array(0.0, np.float32)),
                                      self.const("hi", np.array(6.0, np.float32))])
        return x


def float_model(features: Sequence[str] = FEATURES, seed: int = 7) -> onnx.ModelProto:
    """A float model with the listed features (FEATURES) switched on."""
    unknown = set(features) - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown features {sorted(unknown)}")
    b = _Builder(seed)
    bn = "batchnorm" in features
    act = "relu" if "relu" in features else "clip" if "clip" in features else "none"
    x = "x"
    if "normalize" in features:
        low = b.node("ReduceMin", [x], keepdims=1)
        high = b.node("ReduceMax", [x], keepdims=1)
        span = b.node("Sub", [high, low])
        x = b.node("Div", [b.node("Sub", [x, low]), span])
        x = b.node("Pow", [x, b.const("p", np.array(2.0, np.float32))])
    x = b.activation(b.conv(x, 3, 16, 3, bn), act)
    x = b.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    y = b.activation(b.conv(x, 16, 8, 1, bn), act)
    y = b.activation(b.conv(y, 8, 8, 3, bn), "clip" if "clip" in features else act)
    y = b.conv(y, 8, 32, 1, bn)
    if "residual" in features:
        y = b.activation(b.node("Add", [y, b.conv(x, 16, 32, 1, bn)]), act)
    y = b.node("GlobalAveragePool", [y])
    y = b.node("Flatten", [y], axis=1)
    w = (b.rng.standard_normal((32, 10)) * 0.3).astype(np.float32)
    y = b.node("MatMul", [y, b.const("fc", w)])
    if "l2norm" in features:
        y = b.node("LpNormalization", [y], axis=1, p=2)
    b.nodes[-1].output[0] = "y"
    graph = helper.make_graph(
        b.nodes, "qdq_features", [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def calibration(count: int = 8, seed: int = 11) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 3.0, SHAPE).astype(np.float32) for _ in range(count)]


def quantized_model(model: onnx.ModelProto, activations: str) -> onnx.ModelProto:
    """quantize_static in the QDQ format: per-channel int8 weights, int8
    ("int8") or uint8 ("uint8") activations, MinMax ranges."""
    from onnxruntime import quantization as q

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            self.feeds = iter([{"x": x} for x in calibration()])

        def get_next(self):
            return next(self.feeds, None)

    activation_type = {"int8": q.QuantType.QInt8, "uint8": q.QuantType.QUInt8}[activations]
    logging.disable(logging.WARNING)   # the quantizer's advice on pre-processing
    try:
        return _quantize(model, Reader(), activation_type)
    finally:
        logging.disable(logging.NOTSET)


def _quantize(model: onnx.ModelProto, reader, activation_type) -> onnx.ModelProto:
    from onnxruntime import quantization as q
    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "float.onnx", Path(tmp) / "qdq.onnx"
        onnx.save(model, str(source))
        q.quantize_static(str(source), str(target), reader, quant_format=q.QuantFormat.QDQ,
                          activation_type=activation_type, weight_type=q.QuantType.QInt8,
                          per_channel=True, calibrate_method=q.CalibrationMethod.MinMax)
        return onnx.load(str(target))
