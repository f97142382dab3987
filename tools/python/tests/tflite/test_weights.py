"""TFLite weight formats against LiteRT: float16 weights behind DEQUANTIZE,
sparse weights behind DENSIFY, int8 weights read by LiteRT's hybrid kernels
(dynamic-range quantization), and integer models (int8 activations,
per-channel int8 weights, QUANTIZE and DEQUANTIZE at the float edges),
whose quantized outputs must match LiteRT's integer kernels within one
quantum. Models come from op_models.py (seed 0), calibrated on seed 1."""
from __future__ import annotations

import unittest

import numpy as np

from mace_converter.frontends import tflite_model
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import cosine
from tests.tflite.litert import (TfliteModelCase, convert_tflite, io_names, litert_run,
                                 write_tflite)
from tests.tflite.op_models import CASES

MIN_COSINE = 0.999
# One quantum of the output, with room for float32 rounding of the scale.
MAX_QUANTA = 1.0 + 1e-4


def sparse_weights(generator: np.random.Generator, *shape: int) -> np.ndarray:
    weights = generator.standard_normal(shape).astype(np.float32) * 0.3
    return weights * (generator.uniform(size=shape) < 0.2)


def _dense_net(tf, g):
    conv, dense = sparse_weights(g, 3, 3, 4, 16), sparse_weights(g, 16 * 8 * 8, 32)
    head = (g.standard_normal((32, 10)) * 0.2).astype(np.float32)

    def fn(x):
        c = tf.nn.relu(tf.nn.conv2d(x, conv, 1, "SAME"))
        f = tf.nn.relu(tf.matmul(tf.reshape(c, [1, -1]), dense))
        return (tf.matmul(f, head),)
    return fn


def output_scales(model: tflite_model.TfliteModel) -> dict[str, float]:
    """Output name -> the scale of its integers: those its DEQUANTIZE reads,
    or its own for an int8 or uint8 output."""
    producer = {out: op for op in model.operators for out in op.outputs}
    scales = {}
    for index in model.outputs:
        op = producer.get(index)
        tensor = model.tensors[index]
        if tensor.dtype in (3, 9) and tensor.quant is not None:
            scales[tflite_model.canonical_name(tensor.name)] = float(tensor.quant.scale[0])
        elif op is not None and op.op_type == "DEQUANTIZE":
            quant = model.tensors[op.inputs[0]].quant
            if quant is not None and model.const(model.tensors[op.inputs[0]]) is None:
                scales[tflite_model.canonical_name(model.tensors[index].name)] = \
                    float(quant.scale[0])
    return scales


class TfliteWeightFormatsTest(TfliteModelCase):
    def compare(self, name: str, build, shapes, optimize: str, wanted_ops=()) -> dict:
        generator = np.random.default_rng(0)
        calibration = np.random.default_rng(1)

        def representative():
            for _ in range(8):
                yield [calibration.uniform(-1, 1, s).astype(np.float32) for s in shapes]
        path = write_tflite(self.dir / f"{name}_{optimize}.tflite", build(self.tf, generator),
                            shapes, optimize=optimize, representative=representative)
        model = tflite_model.read(path)
        self.assertLessEqual(set(wanted_ops), {op.op_type for op in model.operators}, name)
        names, outputs = io_names(path)
        inputs = {n: list(s) for n, s in zip(names, shapes)}
        feeds = {n: generator.uniform(-1, 1, s).astype(np.float32) for n, s in inputs.items()}
        expected = litert_run(path, feeds)
        converted = convert_tflite(path, inputs, outputs)
        got = run(converted.net_def, converted.weights, feeds)
        scales = output_scales(model)
        worst = {}
        for out in outputs:
            self.assertEqual(got[out].shape, expected[out].shape, f"{name}/{out}")
            if out in scales:
                quanta = float(np.abs(got[out] - expected[out]).max()) / scales[out]
                self.assertLessEqual(quanta, MAX_QUANTA, f"{name}/{out}")
                worst[out] = quanta
            else:
                self.assertGreaterEqual(cosine(got[out], expected[out]), MIN_COSINE,
                                        f"{name}/{out}")
        return worst

    def test_float16_weights(self):
        self.compare("dense_net", _dense_net, [[1, 8, 8, 4]], "fp16", ["DEQUANTIZE"])

    def test_sparse_weights(self):
        self.compare("dense_net", _dense_net, [[1, 8, 8, 4]], "sparse", ["DENSIFY"])

    def test_dynamic_range_int8_weights(self):
        self.compare("dense_net", _dense_net, [[1, 8, 8, 4]], "dynamic")

    def test_int8_inputs_and_outputs(self):
        for name in ("convolutions", "matmul"):
            case = next(c for c in CASES if c.name == name)
            with self.subTest(name):
                worst = self.compare(case.name, case.build, case.shapes, "int8_io")
                self.assertTrue(worst, "no int8 output was checked")

    def test_int8_models_within_one_quantum(self):
        quantized = 0
        for case in CASES:
            if case.dynamic:
                continue
            with self.subTest(case.name):
                worst = self.compare(case.name, case.build, case.shapes, "int8",
                                     ["QUANTIZE", "DEQUANTIZE"])
                quantized += len(worst)
        self.assertGreaterEqual(quantized, 40)   # int8 outputs checked in quanta


if __name__ == "__main__":
    unittest.main()
