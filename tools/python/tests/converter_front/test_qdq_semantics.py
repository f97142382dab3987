"""QDQ models made by onnxruntime's quantize_static with int8 and uint8
activations keep their meaning in MACE: each QuantizeLinear ->
DequantizeLinear pair rounds and saturates (the ReLU and Clip the quantizer
folded into the ranges live only there), in a float conversion and with
quantize: 1. Checked against onnxruntime on the whole model, layer by layer
(every dequantized activation), for each feature alone and all together, on
the numpy runner and through the engine (mace_run)."""
from __future__ import annotations

import unittest

import numpy as np
import onnx

from mace_converter.numpy_runner import run
from mace_converter.quantize.graph_pass import DT_UINT8, QuantizeSettings
from tests.converter_front.helpers import convert_model, cosine, ort_run
from tests.converter_front.qdq_models import (FEATURES, SHAPE, calibration, float_model,
                                              quantized_model)
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN

ACTIVATIONS = ("int8", "uint8")
_MODELS: dict = {}


def qdq(features, activations: str) -> onnx.ModelProto:
    key = (tuple(features), activations)
    if key not in _MODELS:
        _MODELS[key] = quantized_model(float_model(features), activations)
    return _MODELS[key]


def feeds() -> dict[str, np.ndarray]:
    return {"x": calibration(1, seed=99)[0]}


def dequantized_activations(model: onnx.ModelProto) -> list[str]:
    """Outputs of the DequantizeLinear nodes of activations (their input
    comes from a QuantizeLinear), in graph order."""
    quantized = {n.output[0] for n in model.graph.node if n.op_type == "QuantizeLinear"}
    return [n.output[0] for n in model.graph.node
            if n.op_type == "DequantizeLinear" and n.input[0] in quantized]


def with_outputs(model: onnx.ModelProto, names: list[str]) -> onnx.ModelProto:
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    del copy.graph.output[:]
    copy.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names)
    return copy


def output_scale(model: onnx.ModelProto, name: str) -> float:
    """The scale of the QuantizeLinear that `name`'s DequantizeLinear reads."""
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    producer = {n.output[0]: n for n in model.graph.node}
    quantize = producer[producer[name].input[0]]
    return float(inits[quantize.input[1]])


class FloatConversionTest(unittest.TestCase):
    """Without quantize: 1 every pair is a fake quantization in float: the
    same values as onnxruntime up to float rounding of the ops between."""

    def check(self, features, activations):
        model = qdq(features, activations)
        x = feeds()
        want = ort_run(model, x)[0]
        converted = convert_model(model, {"x": list(SHAPE)}, ["y"], runtime="cpu")
        got = run(converted.net_def, converted.weights, x)["y"]
        self.assertGreater(cosine(got, want), 0.9999)
        return converted

    def test_each_feature_alone(self):
        for activations in ACTIVATIONS:
            for feature in FEATURES:
                with self.subTest(activations=activations, feature=feature):
                    self.check([feature], activations)

    def test_all_features_layer_by_layer(self):
        for activations in ACTIVATIONS:
            model = qdq(FEATURES, activations)
            names = dequantized_activations(model)
            self.assertGreater(len(names), 10)
            x = feeds()
            wants = dict(zip(names, ort_run(with_outputs(model, names), x)))
            for name in names:
                with self.subTest(activations=activations, tensor=name):
                    converted = convert_model(model, {"x": list(SHAPE)}, [name],
                                              runtime="cpu")
                    got = run(converted.net_def, converted.weights, x)[name]
                    want = wants[name]
                    self.assertGreater(cosine(got, want), 0.9999)
                    # Saturation kept: nothing below the folded activation's floor.
                    self.assertGreaterEqual(float(got.min()), float(want.min()) - 1e-6)
                    # Values on the quantization grid, off by at most one step
                    # where float rounding of the ops before lands on a tie.
                    scale = output_scale(model, name)
                    steps = np.abs(got - want) / scale
                    self.assertLessEqual(float(steps.max()), 1.0 + 1e-3)
                    self.assertGreater(float(np.mean(steps < 1e-3)), 0.99)

    def test_pairs_are_kept_and_logged(self):
        converted = self.check(FEATURES, "int8")
        fake = [op for op in converted.net_def.op if op.type == "QuantizeLinear"]
        self.assertGreaterEqual(len(fake), 10)
        # Each pair is one QuantizeLinear that dequantizes its integers.
        for op in fake:
            self.assertIn(("dequantize", 1), [(a.name, a.i) for a in op.arg], op.name)
        self.assertNotIn("DequantizeLinear", [op.type for op in converted.net_def.op])
        self.assertTrue(any("round and saturate in float" in line for line in converted.log))
        self.assertTrue(any(f"fused {len(fake)} QuantizeLinear -> DequantizeLinear" in line
                            for line in converted.log), converted.log)


class EngineTest(unittest.TestCase):
    """The same models through the C++ engine: the float conversion agrees
    with onnxruntime, and so does quantize: 1, which runs the int8
    activations as uint8 ones (zero point + 128, the same real values)."""

    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")

    def test_float_conversion(self):
        for activations in ACTIVATIONS:
            with self.subTest(activations=activations):
                model = qdq(FEATURES, activations)
                x = feeds()
                converted = convert_model(model, {"x": list(SHAPE)}, ["y"], runtime="cpu")
                got = run_converted(self, converted, x)["y"].reshape(1, 10)
                self.assertGreater(cosine(got, ort_run(model, x)[0]), 0.9999)

    def test_quantize_runs_int8_activations_as_integers(self):
        for activations in ACTIVATIONS:
            with self.subTest(activations=activations):
                model = qdq(FEATURES, activations)
                x = feeds()
                converted = convert_model(model, {"x": list(SHAPE)}, ["y"], runtime="cpu",
                                          quantize=QuantizeSettings())
                uint8_convs = [op for op in converted.net_def.op if op.type == "Conv2D" and any(
                    a.name == "T" and a.i == DT_UINT8 for a in op.arg)]
                self.assertGreaterEqual(len(uint8_convs), 4, converted.log)
                got = run_converted(self, converted, x)["y"].reshape(1, 10)
                self.assertGreater(cosine(got, ort_run(model, x)[0]), 0.999)


if __name__ == "__main__":
    unittest.main()
