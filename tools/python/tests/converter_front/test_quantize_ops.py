"""The uint8 pass beyond Conv2D: depthwise convolutions (the per-channel
weight axis), residual additions, pooling, concatenation, fully connected
layers, MatMul, Softmax and data movement stay uint8 between one Quantize
and one Dequantize, and the engine runs what the converter writes.

The end-to-end tests need the host mace_run (MACE_RUN, default
bazel-bin/mace/tools/mace_run)."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import numpy as np
from onnx import helper

from mace_converter.quantize import calibration, scheme
from mace_converter.quantize.graph_pass import DT_UINT8, QuantizeSettings
from mace_tools import proto
from tests.converter_front.helpers import (convert_model, cosine, initializer, make_model,
                                           mace_run_outputs, ort_run, rng)
from tests.converter_front.test_quantize import MACE_RUN, multiplier, requantize

DW_SHAPE = [1, 4, 7, 6]
MULT = 2          # depthwise channel multiplier


def depthwise_model() -> tuple:
    """Depthwise 3x3, 4 channels x multiplier 2, stride 2, pad 1, bias, ReLU."""
    g = rng(31)
    w = g.normal(0, 0.5, (4 * MULT, 1, 3, 3)).astype(np.float32)
    # Channels of very different magnitude: one scale for all would lose them.
    w *= np.array([1, 8, 0.1, 1, 3, 0.5, 1, 20], np.float32)[:, None, None, None]
    b = g.normal(0, 0.3, 4 * MULT).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], group=4, pads=[1, 1, 1, 1],
                              strides=[2, 2]),
             helper.make_node("Relu", ["c"], ["y"])]
    return make_model(nodes, {"x": DW_SHAPE}, {"y": None},
                      [initializer("w", w), initializer("b", b)]), w


def chain_model() -> tuple:
    """Conv+Relu -> depthwise+Clip -> Conv 1x1 -> Add (residual) + Relu ->
    MaxPool -> two Conv 1x1 -> Concat -> GlobalAveragePool -> Flatten ->
    Gemm -> Softmax."""
    g = rng(41)
    shape = [1, 3, 10, 9]

    def weight(name, *dims, std=0.4):
        return initializer(name, g.normal(0, std, dims).astype(np.float32))

    inits = [weight("w1", 8, 3, 3, 3), weight("b1", 8, std=0.1),
             weight("w2", 8, 1, 3, 3), weight("b2", 8, std=0.1),
             weight("w3", 8, 8, 1, 1), weight("b3", 8, std=0.1),
             weight("w4", 4, 8, 1, 1), weight("w5", 4, 8, 1, 1),
             weight("wf", 10, 8, std=1.5), weight("bf", 10, std=0.2),
             initializer("lo", np.array(0, np.float32)),
             initializer("hi", np.array(6, np.float32))]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], group=8, pads=[1, 1, 1, 1]),
             helper.make_node("Clip", ["c2", "lo", "hi"], ["r2"]),
             helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"]),
             helper.make_node("Add", ["r1", "c3"], ["a"]),
             helper.make_node("Relu", ["a"], ["ra"]),
             helper.make_node("MaxPool", ["ra"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p", "w4"], ["q1"]),
             helper.make_node("Conv", ["p", "w5"], ["q2"]),
             helper.make_node("Concat", ["q1", "q2"], ["cc"], axis=1),
             helper.make_node("GlobalAveragePool", ["cc"], ["gp"]),
             helper.make_node("Flatten", ["gp"], ["f"]),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["logits"], transB=1),
             helper.make_node("Softmax", ["logits"], ["y"], axis=1)]
    return make_model(nodes, {"x": shape}, {"y": None}, inits), shape


def calibrate(model, shape, names=("x",), count=8, offset=0):
    converted = convert_model(model, {n: shape for n in names}, ["y"],
                              # The quantized model's fusions, as the workflow
                              # calibrates.
                              keep_activations=())
    g = rng(200 + offset)
    feeds = [{n: g.uniform(-1, 1, shape).astype(np.float32) for n in names}
             for _ in range(count)]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "f.pb").write_bytes(converted.net_def.SerializeToString())
        (d / "f.data").write_bytes(converted.weights)
        return calibration.collect_ranges(d / "f.pb", d / "f.data", converted.inputs, feeds,
                                          "minmax", 99.0)


def run_mace(converted, feeds: dict[str, np.ndarray]) -> np.ndarray:
    return mace_run_outputs(MACE_RUN, converted, feeds, ["y"])["y"]


def op_types(net) -> list[tuple[str, bool]]:
    return [(op.type, any(a.name == "T" and a.i == DT_UINT8 for a in op.arg)) for op in net.op]


def const(net, blob: bytes, name: str) -> tuple[np.ndarray, object]:
    pb = proto.load()
    tensor = next(t for t in net.tensors if t.name == name)
    dtype = {pb.DT_UINT8: np.uint8, pb.DT_INT8: np.int8, pb.DT_INT32: np.int32,
             pb.DT_FLOAT: np.float32}[tensor.data_type]
    count = int(np.prod(tensor.dims))
    return np.frombuffer(blob, dtype, count, tensor.offset).reshape(list(tensor.dims)), tensor


class DepthwiseAxisTest(unittest.TestCase):
    """The per-channel rule: a depthwise filter [multiplier, channels, kh, kw]
    has one scale per output channel o = c * multiplier + m, covering
    element [m, c]; the bias and the ONNX weight use the same order."""

    def test_channel_rows(self):
        w = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 2, 2)
        rows = scheme.channel_rows(w, "depthwise")
        self.assertEqual(rows.shape, (6, 4))
        for c in range(3):
            for m in range(2):
                np.testing.assert_array_equal(rows[c * 2 + m], w[m, c].ravel())
        np.testing.assert_array_equal(scheme.from_channel_rows(rows, w.shape, "depthwise"), w)

    def test_scales_per_output_channel(self):
        model, w_onnx = depthwise_model()
        ranges = {"x": (-1.0, 1.0), "y": (0.0, 4.0)}
        q = convert_model(model, {"x": DW_SHAPE}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges))
        self.assertEqual(op_types(q.net_def), [("Quantize", False), ("DepthwiseConv2d", True),
                                               ("Dequantize", False)])
        dw = q.net_def.op[1]
        w, tensor = const(q.net_def, q.weights, dw.input[1])
        self.assertEqual(w.dtype, np.int8)
        self.assertEqual(list(w.shape), [MULT, 4, 3, 3])
        scales = np.asarray(tensor.channel_scales, np.float32)
        self.assertEqual(len(scales), 4 * MULT)
        for c in range(4):
            for m in range(MULT):
                o = c * MULT + m
                onnx_channel = w_onnx[o, 0].astype(np.float64)
                self.assertAlmostEqual(scales[o], np.abs(onnx_channel).max() / 127, places=6)
                self.assertEqual(np.abs(w[m, c]).max(), 127)
                np.testing.assert_array_equal(
                    w[m, c], scheme.round_half_away(onnx_channel / np.float64(scales[o])))

    @unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
    def test_engine_matches_integer_model(self):
        model, _ = depthwise_model()
        ranges = calibrate(model, DW_SHAPE)
        q = convert_model(model, {"x": DW_SHAPE}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges))
        net = q.net_def
        quantize, dw, dequantize = net.op
        sx, zx = np.float32(quantize.quantize_info[0].scale), quantize.quantize_info[0].zero_point
        so, zo = np.float32(dw.quantize_info[0].scale), dw.quantize_info[0].zero_point
        w, tensor = const(net, q.weights, dw.input[1])
        bias, _ = const(net, q.weights, dw.input[2])
        for index in range(3):
            x = rng(300 + index).uniform(-1, 1, DW_SHAPE).astype(np.float32)
            got = run_mace(q, {"x": x})
            xq = np.clip(scheme.round_half_away(x.astype(np.float64) / sx) + zx, 0, 255)
            padded = np.pad(xq.astype(np.int64) - zx, ((0, 0), (0, 0), (1, 1), (1, 1)))
            oh, ow = (DW_SHAPE[2] + 2 - 3) // 2 + 1, (DW_SHAPE[3] + 2 - 3) // 2 + 1
            want = np.zeros((1, 4 * MULT, oh, ow), np.int64)
            for c in range(4):
                for m in range(MULT):
                    o = c * MULT + m
                    acc = np.full((oh, ow), int(bias[o]), np.int64)
                    for i in range(3):
                        for j in range(3):
                            acc += int(w[m, c, i, j]) * padded[0, c, i:i + 2 * oh:2, j:j + 2 * ow:2]
                    mult, shift = multiplier(np.float64(sx) * np.float32(tensor.channel_scales[o])
                                             / np.float64(so))
                    want[0, o] = np.clip(zo + requantize(acc, mult, shift), zo, 255)
            expected = np.float32(so) * (want - zo).astype(np.float32)
            np.testing.assert_array_equal(got, expected)
            self.assertGreater(cosine(got, ort_run(model, {"x": x})[0]), 0.99)


class Uint8ChainTest(unittest.TestCase):
    def convert(self):
        model, shape = chain_model()
        ranges = calibrate(model, shape)
        return model, shape, convert_model(model, {"x": shape}, ["y"], data_type="uint8",
                                           quantize=QuantizeSettings(ranges=ranges))

    def test_uint8_from_the_first_to_the_last_op(self):
        _, _, q = self.convert()
        types = op_types(q.net_def)
        self.assertEqual(types[0], ("Quantize", False))
        self.assertEqual(types[-1], ("Dequantize", False))
        self.assertTrue(all(uint8 for _, uint8 in types[1:-1]), types)
        kinds = {t for t, _ in types}
        for kind in ("Conv2D", "DepthwiseConv2d", "Eltwise", "Pooling", "Concat",
                     "FullyConnected", "Softmax"):
            self.assertIn(kind, kinds)
        softmax = next(op for op in q.net_def.op if op.type == "Softmax")
        self.assertEqual((softmax.quantize_info[0].scale, softmax.quantize_info[0].zero_point),
                         (1 / 256, 0))
        pools = [op for op in q.net_def.op if op.type == "Pooling"]
        producers = {out: op for op in q.net_def.op for out in op.output}
        for pool in pools:        # pooling keeps its input's quantization
            source = producers[pool.input[0]].quantize_info[0]
            self.assertEqual((pool.quantize_info[0].scale, pool.quantize_info[0].zero_point),
                             (source.scale, source.zero_point))

    @unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
    def test_engine_runs_it_close_to_float(self):
        model, shape, q = self.convert()
        for index in range(3):
            x = rng(400 + index).uniform(-1, 1, shape).astype(np.float32)
            got = run_mace(q, {"x": x})
            want = ort_run(model, {"x": x})[0]
            self.assertGreater(cosine(got, want), 0.98)
            self.assertLessEqual(np.abs(got - want).max(), 4 / 256)


def shuffle_model() -> tuple:
    """A ShuffleNet v2 unit and a SqueezeNet fire module: Conv+Relu -> Split
    -> (x1, Conv+Relu of x2) -> Concat -> channel shuffle (Reshape,
    Transpose, Reshape) -> two Conv+Relu of different gains (one through a
    1x1 MaxPool) -> Concat -> MaxPool."""
    g = rng(61)
    shape = [1, 3, 9, 7]

    def weight(name, *dims, std=0.4):
        return initializer(name, g.normal(0, std, dims).astype(np.float32))

    inits = [weight("w1", 8, 3, 3, 3), weight("w2", 4, 4, 1, 1), weight("b2", 4, std=0.1),
             weight("w3", 3, 8, 1, 1, std=0.1), weight("w4", 5, 8, 3, 3, std=1.0),
             initializer("s4", np.array([1, 2, 4, 9, 7], np.int64)),
             initializer("s3", np.array([1, 8, 9, 7], np.int64)),
             initializer("split", np.array([4, 4], np.int64))]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Split", ["r1", "split"], ["x1", "x2"], axis=1),
             helper.make_node("Conv", ["x2", "w2", "b2"], ["c2"]),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("Concat", ["x1", "r2"], ["cc"], axis=1),
             helper.make_node("Reshape", ["cc", "s4"], ["g"]),
             helper.make_node("Transpose", ["g"], ["t"], perm=[0, 2, 1, 3, 4]),
             helper.make_node("Reshape", ["t", "s3"], ["sh"]),
             # A 1x1 max pooling between the shuffle and one of its
             # convolutions keeps the CPU converter from folding the
             # shuffle into their weights, so the op stays to be checked.
             helper.make_node("MaxPool", ["sh"], ["p"], kernel_shape=[1, 1]),
             helper.make_node("Conv", ["p", "w3"], ["c3"]),
             helper.make_node("Relu", ["c3"], ["r3"]),
             helper.make_node("Conv", ["sh", "w4"], ["c4"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c4"], ["r4"]),
             helper.make_node("Concat", ["r3", "r4"], ["fire"], axis=1),
             helper.make_node("MaxPool", ["fire"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                              ceil_mode=1)]
    return make_model(nodes, {"x": shape}, {"y": None}, inits), shape


class SharedRangeTest(unittest.TestCase):
    """Concat, Split and channel shuffle stay uint8, and each Concat's
    inputs and output share one quantization (the union of their ranges),
    so the uint8 Concat only copies."""

    def convert(self):
        model, shape = shuffle_model()
        ranges = calibrate(model, shape)
        return model, shape, ranges, convert_model(model, {"x": shape}, ["y"],
                                                   data_type="uint8",
                                                   quantize=QuantizeSettings(ranges=ranges))

    def test_data_movement_stays_uint8(self):
        _, _, _, q = self.convert()
        types = op_types(q.net_def)
        self.assertEqual(types[0], ("Quantize", False))
        self.assertEqual(types[-1], ("Dequantize", False))
        self.assertTrue(all(uint8 for _, uint8 in types[1:-1]), types)
        kinds = {t for t, _ in types}
        for kind in ("Split", "ChannelShuffle", "Concat", "Pooling"):
            self.assertIn(kind, kinds)

    def test_concat_inputs_share_the_output_quantization(self):
        _, _, ranges, q = self.convert()
        info = {out: (op.quantize_info[0].scale, op.quantize_info[0].zero_point)
                for op in q.net_def.op if op.quantize_info for out in op.output}
        concats = [op for op in q.net_def.op if op.type == "Concat"]
        self.assertEqual(len(concats), 2)
        for concat in concats:
            for name in concat.input:
                self.assertEqual(info[name], info[concat.output[0]], name)
        # The fire module's range is the union of its two branches'.
        low = min(ranges["r3"][0], ranges["r4"][0], 0.0)
        high = max(ranges["r3"][1], ranges["r4"][1])
        fire = scheme.activation_params(low, high, "fire")
        self.assertEqual(info[concats[1].output[0]], (fire.scale, fire.zero_point))
        # The shuffle unit's group runs from the first Relu through the
        # Split, the Concat and the shuffle to the convolutions' input.
        first = {info[op.output[0]] for op in q.net_def.op
                 if op.type in ("Split", "ChannelShuffle")}
        self.assertEqual(len(first), 1)
        self.assertEqual(first, {info[concats[0].output[0]]})

    def test_imported_parameters_are_kept(self):
        from mace_converter.ir import QuantParams
        model, shape = shuffle_model()
        ranges = calibrate(model, shape)
        fixed = {"r4": QuantParams(scale=0.5, zero_point=0, minval=0.0, maxval=127.5)}
        q = convert_model(model, {"x": shape}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges, fixed=fixed))
        concat = [op for op in q.net_def.op if op.type == "Concat"][1]
        self.assertEqual(concat.quantize_info[0].scale,
                         scheme.activation_params(0.0, ranges["fire"][1], "fire").scale)

    @unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
    def test_engine_runs_it_close_to_float(self):
        model, shape, _, q = self.convert()
        for index in range(3):
            x = rng(700 + index).uniform(-1, 1, shape).astype(np.float32)
            got = run_mace(q, {"x": x})
            want = ort_run(model, {"x": x})[0]
            self.assertGreater(cosine(got, want), 0.98)


class MatMulAndSoftmaxTest(unittest.TestCase):
    def test_matmul_of_two_tensors(self):
        nodes = [helper.make_node("MatMul", ["a", "b"], ["y"])]
        model = make_model(nodes, {"a": [4, 6], "b": [6, 5]}, {"y": None})
        ranges = {"a": (-1.0, 1.0), "b": (-1.0, 1.0), "y": (-3.0, 3.0)}
        q = convert_model(model, {"a": [4, 6], "b": [6, 5]}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges))
        self.assertEqual(op_types(q.net_def), [("Quantize", False), ("Quantize", False),
                                               ("MatMul", True), ("Dequantize", False)])
        if MACE_RUN.exists():
            g = rng(500)
            feeds = {"a": g.uniform(-1, 1, (4, 6)).astype(np.float32),
                     "b": g.uniform(-1, 1, (6, 5)).astype(np.float32)}
            got = run_mace(q, feeds)
            np.testing.assert_allclose(got, feeds["a"] @ feeds["b"], atol=0.08)

    def test_flat_softmax_stays_float(self):
        g = rng(600)
        inits = [initializer("w", g.normal(0, 0.01, (100, 8)).astype(np.float32))]
        nodes = [helper.make_node("Gemm", ["x", "w"], ["logits"], transB=1),
                 helper.make_node("Softmax", ["logits"], ["y"], axis=1)]
        model = make_model(nodes, {"x": [1, 8]}, {"y": None}, inits)
        ranges = {"x": (-1.0, 1.0), "logits": (-0.1, 0.1), "y": (0.0, 0.011)}
        q = convert_model(model, {"x": [1, 8]}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges))
        self.assertEqual(op_types(q.net_def), [("Quantize", False), ("FullyConnected", True),
                                               ("Dequantize", False), ("Softmax", False)])
        self.assertTrue(any("stays float" in line and "Softmax" in line for line in q.log), q.log)


if __name__ == "__main__":
    unittest.main()
