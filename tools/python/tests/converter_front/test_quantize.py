"""uint8 quantization in the converter: range files, the checks on bad
input, the quantization pass end to end through mace_run (bit-exact against
a numpy model of the integer arithmetic, and close to the float model), and
an onnxruntime QDQ model imported and compared with onnxruntime.

The end-to-end tests need the host mace_run (MACE_RUN, default
bazel-bin/mace/tools/mace_run)."""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

import numpy as np
import onnx
from onnx import helper

from mace_converter.api import ConversionError
from mace_converter.config import ConfigError, load_config
from mace_converter.ir import QuantParams
from mace_converter.progress import REPO, UserError
from mace_converter.quantize import calibration, scheme
from mace_converter.quantize.agreement import output_scale, within_one_quantum
from mace_converter.quantize.graph_pass import DT_UINT8, UINT8_KERNELS, QuantizeSettings
from mace_converter.quantize.ranges import (format_ranges, merge_ranges, parse_ranges,
                                            read_ranges)
from mace_tools import proto
from tests.converter_front.helpers import (HOST_HAS_VNNI, convert_model, cosine, initializer,
                                           make_model, ort_run, rng)

MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))
SHAPE = [1, 3, 9, 7]



def conv_model(last_activation: str = "Clip") -> onnx.ModelProto:
    """Conv 3x3 stride 2 + Relu -> Conv 1x1 + (Clip 0..6 | Sigmoid)."""
    g = rng(11)
    inits = [initializer("w1", g.normal(0, 0.4, (8, 3, 3, 3)).astype(np.float32)),
             initializer("b1", g.normal(0, 0.2, 8).astype(np.float32)),
             initializer("w2", g.normal(0, 0.4, (5, 8, 1, 1)).astype(np.float32)),
             initializer("b2", g.normal(0, 0.2, 5).astype(np.float32)),
             initializer("lo", np.array(0, np.float32)), initializer("hi", np.array(6, np.float32))]
    last = helper.make_node("Clip", ["c2", "lo", "hi"], ["y"]) if last_activation == "Clip" \
        else helper.make_node("Sigmoid", ["c2"], ["y"])
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1],
                              strides=[2, 2]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"]), last]
    return make_model(nodes, {"x": SHAPE}, {"y": None}, inits)


def samples(count: int, offset: int = 0) -> list[np.ndarray]:
    g = rng(100 + offset)
    return [g.uniform(-1, 1, SHAPE).astype(np.float32) for _ in range(count)]


def mace_run(converted, x: np.ndarray, extra=()) -> np.ndarray:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "m.pb").write_bytes(converted.net_def.SerializeToString())
        (d / "m.data").write_bytes(converted.weights)
        np.save(d / "in_x.npy", x)
        result = subprocess.run([str(MACE_RUN), f"--model_file={d / 'm.pb'}",
                                 f"--model_data_file={d / 'm.data'}", f"--input_file={d / 'in'}",
                                 f"--output_file={d / 'out'}", *extra],
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise AssertionError(result.stderr)
        return np.load(d / "out_y.npy")


def calibrate(model: onnx.ModelProto, xs: list[np.ndarray], method: str = "minmax"):
    converted = convert_model(model, {"x": SHAPE}, ["y"],
                              # The quantized model's fusions, as the workflow
                              # calibrates.
                              keep_activations=())
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "f.pb").write_bytes(converted.net_def.SerializeToString())
        (d / "f.data").write_bytes(converted.weights)
        return calibration.collect_ranges(d / "f.pb", d / "f.data", converted.inputs,
                                          [{"x": x} for x in xs], method, 99.0)


# ---- a numpy model of the engine's integer arithmetic ----------------------

def multiplier(real: float) -> tuple[int, int]:
    """MakeQuantizedMultiplier (mace/ops/common/quantize.cc)."""
    fraction, exponent = np.frexp(real)
    if exponent < -31:
        return 0, 1
    m = int(np.round(np.float64(fraction) * 2.0 ** 31))
    if abs(fraction * 2.0 ** 31 - int(fraction * 2.0 ** 31)) == 0.5:
        m = int(fraction * 2.0 ** 31) + 1      # llround: half away from zero
    if m == 2 ** 31:
        m, exponent = m >> 1, exponent + 1
    return m, 31 - int(exponent)


def requantize(acc: np.ndarray, m: int, shift: int) -> np.ndarray:
    magnitude = np.abs(acc.astype(object))
    rounded = (magnitude * m + (1 << (shift - 1))) >> shift
    return np.where(acc < 0, -rounded, rounded).astype(np.int64)


def int_conv(xq, zx, wq, zw, bias, stride, pad):
    x = np.pad(xq.astype(np.int64) - zx, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    w = wq.astype(np.int64) - zw
    o, _, kh, kw = w.shape
    oh = (x.shape[2] - kh) // stride + 1
    ow = (x.shape[3] - kw) // stride + 1
    out = np.zeros((1, o, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            patch = x[0, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[0, :, i, j] = np.tensordot(w, patch, axes=3)
    return out + bias.reshape(1, -1, 1, 1)


def simulate(net, blob: bytes, x: np.ndarray) -> np.ndarray:
    """Runs a Quantize -> Conv2D(uint8)... -> Dequantize net in numpy."""
    consts = {}
    for t in net.tensors:
        dtype = {proto.load().DT_UINT8: np.uint8, proto.load().DT_INT8: np.int8,
                 proto.load().DT_INT32: np.int32, proto.load().DT_FLOAT: np.float32}[t.data_type]
        count = int(np.prod(t.dims))
        consts[t.name] = (np.frombuffer(blob, dtype, count, t.offset).reshape(list(t.dims)), t)
    values, quant = {"x": x}, {}
    for op in net.op:
        args = {a.name: a for a in op.arg}
        if op.type == "Quantize":
            info = op.quantize_info[0]
            q = scheme.round_half_away(values[op.input[0]].astype(np.float64)
                                       / np.float32(info.scale)) + info.zero_point
            values[op.output[0]] = np.clip(q, 0, 255).astype(np.int64)
            quant[op.output[0]] = (np.float32(info.scale), info.zero_point)
        elif op.type == "Dequantize":
            s, z = quant[op.input[0]]
            values[op.output[0]] = np.float32(s) * (values[op.input[0]] - z).astype(np.float32)
        else:
            assert op.type == "Conv2D" and args["T"].i == DT_UINT8, op.type
            sx, zx = quant[op.input[0]]
            w, wt = consts[op.input[1]]
            b = consts[op.input[2]][0]
            info = op.quantize_info[0]
            so, zo = np.float32(info.scale), info.zero_point
            scales = list(wt.channel_scales) or [wt.scale] * w.shape[0]
            stride = list(args["strides"].ints)[0]
            pad = list(args["pads"].ints)[0] if "pads" in args else 0
            acc = int_conv(values[op.input[0]], zx, w, wt.zero_point, b, stride, pad)
            out = np.zeros_like(acc)
            for c, ws in enumerate(scales):
                m, shift = multiplier(np.float64(sx) * np.float32(ws) / np.float64(so))
                out[0, c] = zo + requantize(acc[0, c], m, shift)
            act = args["activation"].s.decode() if "activation" in args else "NOOP"
            low = zo if act in ("RELU", "RELU6") else 0
            high = min(255, zo + int(scheme.round_half_away(np.float64(6.0) / so))) \
                if act == "RELU6" else 255
            values[op.output[0]] = np.clip(out, low, high)
            quant[op.output[0]] = (so, zo)
    return values["y"]


# ---- tests -----------------------------------------------------------------

class RangeFileTest(unittest.TestCase):
    def test_round_trip(self):
        ranges = {"x": (-1.0, 0.99), "conv/out:0": (0.0, 6.25), "odd name@@x": (-3e-5, 1e7)}
        self.assertEqual(parse_ranges(format_ranges(ranges), "t"), ranges)

    def test_comments_and_blank_lines(self):
        text = "# ranges\n\nx@@-1,1\n  y@@0,2  \n"
        self.assertEqual(parse_ranges(text, "t"), {"x": (-1.0, 1.0), "y": (0.0, 2.0)})

    def test_merge(self):
        runs = [{"a": (-1.0, 2.0)}, {"a": (-3.0, 1.0), "b": (0.0, 1.0)}]
        self.assertEqual(merge_ranges(runs), {"a": (-3.0, 2.0), "b": (0.0, 1.0)})
        self.assertEqual(merge_ranges(runs, "percentile")["a"], (-2.0, 1.5))

    def test_bad_files(self):
        cases = {"x@@1\n": "expected 'tensor@@min,max'",
                 "x 1,2\n": "expected 'tensor@@min,max'",
                 "x@@a,b\n": "is not two numbers",
                 "x@@nan,1\n": "not finite",
                 "x@@-inf,1\n": "not finite",
                 "x@@2,1\n": "min 2 above max 1",
                 "x@@0,1\nx@@0,2\n": "listed twice",
                 "# nothing\n": "lists no tensors"}
        for text, needle in cases.items():
            with self.subTest(text=text):
                with self.assertRaises(ConversionError) as caught:
                    parse_ranges(text, "r.txt")
                self.assertIn(needle, str(caught.exception))
                self.assertIn("r.txt", str(caught.exception))

    def test_missing_file(self):
        with self.assertRaisesRegex(ConversionError, "quantize_range_file .* does not exist"):
            read_ranges(Path("/nonexistent/ranges.txt"))


class SchemeTest(unittest.TestCase):
    def test_bad_scales_are_refused(self):
        for low, high in ((float("nan"), 1.0), (0.0, float("inf"))):
            with self.assertRaisesRegex(ConversionError, "tensor 't'.*not finite"):
                scheme.activation_params(low, high, "tensor 't'")
        for scale in (0.0, float("nan"), float("inf"), -1.0):
            with self.assertRaisesRegex(ConversionError, "w .*finite and positive"):
                scheme.weight_int8_per_channel(np.ones((2, 1, 1, 1), np.float32), "w",
                                               np.array([scale, 1.0]))

    def test_activation_params_hold_zero_exactly(self):
        for low, high in ((-1.0, 0.99), (0.2, 3.0), (-5.0, -1.0), (0.0, 0.0)):
            quant = scheme.activation_params(low, high, "t")
            self.assertGreater(quant.scale, 0)
            self.assertTrue(0 <= quant.zero_point <= 255)
            q = scheme.quantize_values(np.zeros(1, np.float32), quant)
            self.assertEqual(scheme.dequantize_values(q, quant)[0], 0.0)

    def test_per_channel_weights_within_half_a_step(self):
        w = rng(3).normal(0, 1, (4, 3, 3, 3)).astype(np.float32)
        w[2] = 0.0
        q, quant = scheme.weight_int8_per_channel(w, "w")
        scales = np.asarray(quant.channel_scales)
        self.assertEqual(q.dtype, np.int8)
        self.assertEqual(np.abs(q.reshape(4, -1)).max(axis=1).tolist()[:2], [127, 127])
        error = np.abs(q * scales[:, None, None, None] - w)
        self.assertTrue(np.all(error <= scales[:, None, None, None] / 2 + 1e-7))

    def test_bias_in_input_times_weight_units(self):
        q, quant = scheme.bias_int32(np.array([0.5, -0.25], np.float32), 0.01,
                                     QuantParams(scale=0.02), "b")
        self.assertEqual(q.tolist(), [2500, -1250])
        self.assertAlmostEqual(quant.scale, 0.0002, places=9)


class KernelTableTest(unittest.TestCase):
    def test_every_table_entry_has_an_engine_kernel(self):
        registered = set()
        for path in (REPO / "mace" / "ops").glob("*.cc"):
            registered.update(re.findall(r'Register\("(\w+)", DeviceType::CPU, DT_UINT8',
                                         path.read_text()))
        self.assertTrue(set(UINT8_KERNELS) <= registered,
                        f"no uint8 kernel in mace/ops for {set(UINT8_KERNELS) - registered}")


class ImportedScalesTest(unittest.TestCase):
    def qdq_model(self, scale: float) -> onnx.ModelProto:
        """x -> QuantizeLinear -> DequantizeLinear -> Conv(int8 weight) -> y."""
        g = rng(5)
        w = g.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
        nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
                 helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
                 helper.make_node("DequantizeLinear", ["wq", "ws"], ["w"]),
                 helper.make_node("Conv", ["xd", "w"], ["c"], pads=[1, 1, 1, 1]),
                 helper.make_node("QuantizeLinear", ["c", "cs", "z"], ["cq"]),
                 helper.make_node("DequantizeLinear", ["cq", "cs", "z"], ["y"])]
        inits = [initializer("s", np.array(scale, np.float32)),
                 initializer("z", np.array(128, np.uint8)),
                 initializer("wq", w), initializer("ws", np.array(0.01, np.float32)),
                 initializer("cs", np.array(0.05, np.float32))]
        return make_model(nodes, {"x": SHAPE}, {"y": None}, inits)

    def test_weights_keep_their_integers(self):
        q = convert_model(self.qdq_model(0.008), {"x": SHAPE}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings())
        weight = next(t for t in q.net_def.tensors if t.data_type == proto.load().DT_INT8)
        self.assertEqual(list(weight.channel_scales), [np.float32(0.01)] * 4)
        stored = np.frombuffer(q.weights, np.int8, 4 * 27, weight.offset)
        np.testing.assert_array_equal(stored, rng(5).integers(-127, 128, 108).astype(np.int8))
        info = next(op for op in q.net_def.op if op.type == "Conv2D").quantize_info[0]
        self.assertEqual((np.float32(info.scale), info.zero_point), (np.float32(0.05), 128))

    def test_bad_scales_name_the_node(self):
        for scale in (0.0, float("nan"), float("inf")):
            with self.subTest(scale=scale):
                with self.assertRaisesRegex(ConversionError,
                                            "QuantizeLinear node .*scale .* finite and positive"):
                    convert_model(self.qdq_model(scale), {"x": SHAPE}, ["y"],
                                  data_type="uint8", quantize=QuantizeSettings())


class Uint8EdgesTest(unittest.TestCase):
    def test_uint8_inputs_and_outputs(self):
        ranges = {"x": (-1.0, 1.0), "r1": (0.0, 3.0), "y": (0.0, 6.0)}
        q = convert_model(conv_model(), {"x": SHAPE}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges, uint8_io=True))
        self.assertEqual([op.type for op in q.net_def.op], ["Conv2D", "Conv2D"])
        self.assertEqual(list(q.net_def.op[0].input)[0], "x")
        self.assertEqual(list(q.net_def.op[1].output), ["y"])
        pb = proto.load()
        for info, (low, high) in ((q.net_def.input_info[0], ranges["x"]),
                                  (q.net_def.output_info[0], ranges["y"])):
            self.assertEqual(info.data_type, pb.DT_UINT8)
            expected = scheme.activation_params(low, high, "")
            self.assertAlmostEqual(info.scale, expected.scale)
            self.assertEqual(info.zero_point, expected.zero_point)

    def test_float_readers_keep_their_edges(self):
        ranges = {"x": (-1.0, 1.0), "r1": (0.0, 3.0), "y": (0.0, 1.0)}
        q = convert_model(conv_model("Sigmoid"), {"x": SHAPE}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges, uint8_io=True))
        self.assertEqual([op.type for op in q.net_def.op], ["Conv2D", "Dequantize", "Conv2D"])
        self.assertEqual(q.net_def.output_info[0].data_type, proto.load().DT_FLOAT)


class ConfigTest(unittest.TestCase):
    BASE = """\
        library_name: q
        target_abis: [host]
        build_type: proto
        models:
          m:
            platform: onnx
            model_file_path: m.onnx
            model_sha256_checksum: {sha}
            runtime: {runtime}
            input_tensors: x
            input_shapes: 1,3,9,7
            output_tensors: y
            output_shapes: 1,5,5,4
        """

    def load(self, extra: str, runtime: str = "cpu"):
        text = textwrap.dedent(self.BASE).format(sha="a" * 64, runtime=runtime)
        text += textwrap.indent(textwrap.dedent(extra), " " * 4)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "q.yml"
            path.write_text(text)
            return load_config(path).models["m"]

    def test_quantize_keys(self):
        model = self.load("quantize: 1\nquantize_range_file: r.txt\n"
                          "quantize_range_method: percentile\nquantize_percentile: 99.9\n"
                          "calibration_inputs: [a.npy, calib/]\nquantize_uint8_io: 1\n")
        self.assertTrue(model.quantize.uint8_io)
        self.assertEqual(model.data_type, "uint8")
        self.assertEqual(model.quantize.range_file, "r.txt")
        self.assertEqual(model.quantize.percentile, 99.9)
        self.assertEqual(model.quantize.calibration_inputs, ["a.npy", "calib/"])

    def test_bad_quantize_keys(self):
        cases = [("quantize: 2\n", "cpu", "models.m.quantize: expected 0 or 1"),
                 ("quantize: 1\n", "gpu", "uint8 models run on runtime cpu"),
                 ("quantize_range_file: r.txt\n", "cpu", "has no effect without quantize: 1"),
                 ("quantize: 1\ndata_type: fp16_fp32\n", "cpu", "drop data_type"),
                 ("quantize: 1\nquantize_range_method: entropy\n", "cpu",
                  "'entropy' is not one of minmax, percentile, kl"),
                 ("quantize: 1\nquantize_range_method: percentile\nquantize_percentile: 100\n",
                  "cpu", "percentile in [50, 100)"),
                 ("quantize: 1\nquantize_percentile: 99\n", "cpu",
                  "needs quantize_range_method: percentile")]
        for extra, runtime, needle in cases:
            with self.subTest(extra=extra):
                with self.assertRaises(ConfigError) as caught:
                    self.load(extra, runtime)
                self.assertIn(needle, str(caught.exception))


class CalibrationInputsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        from mace_converter.api import TensorSpec
        self.inputs = [TensorSpec("x", SHAPE)]

    def tearDown(self):
        self.tmp.cleanup()

    def load(self, *entries):
        return calibration.load_samples(list(entries), self.inputs, "key", self.dir)

    def test_files_directories_and_stacks(self):
        xs = samples(3)
        np.save(self.dir / "a.npy", xs[0])
        (self.dir / "d").mkdir()
        np.save(self.dir / "d" / "b.npy", xs[1])
        np.savez(self.dir / "d" / "c.npz", x=xs[2])
        np.save(self.dir / "stack.npy", np.stack(xs))
        got = self.load("a.npy", "d", "stack.npy")
        self.assertEqual(len(got), 6)
        np.testing.assert_array_equal(got[2]["x"], xs[2])
        np.testing.assert_array_equal(got[5]["x"], xs[2])

    def test_bad_inputs(self):
        np.save(self.dir / "shape.npy", np.zeros([1, 3, 9, 8], np.float32))
        np.save(self.dir / "int.npy", np.zeros(SHAPE, np.int32))
        bad = np.zeros(SHAPE, np.float32)
        bad[0, 0, 0, 0] = np.nan
        np.save(self.dir / "nan.npy", bad)
        np.savez(self.dir / "key.npz", image=np.zeros(SHAPE, np.float32))
        (self.dir / "empty").mkdir()
        (self.dir / "junk.npy").write_bytes(b"not numpy")
        cases = {"shape.npy": "has shape [1, 3, 9, 8], but the model takes [1, 3, 9, 7]",
                 "int.npy": "is int32; calibration inputs must be floating point",
                 "nan.npy": "holds NaN or infinity",
                 "key.npz": "has no array for input(s) x",
                 "empty": "holds no .npy or .npz files",
                 "junk.npy": "cannot read",
                 "missing.npy": "no such file or directory"}
        for entry, needle in cases.items():
            with self.subTest(entry=entry):
                with self.assertRaises(UserError) as caught:
                    self.load(entry)
                self.assertIn(needle, str(caught.exception))


@unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
class EndToEndTest(unittest.TestCase):
    def test_quantize_stat_ranges_match_the_float_model(self):
        model = conv_model()
        xs = samples(3)
        ranges = calibrate(model, xs)
        self.assertEqual(set(ranges), {"x", "r1", "y"})
        # %.9g round-trips float32 exactly.
        self.assertEqual(tuple(np.float32(v) for v in ranges["x"]),
                         (min(x.min() for x in xs), max(x.max() for x in xs)))
        y = np.stack([ort_run(model, {"x": x})[0] for x in xs])
        self.assertAlmostEqual(ranges["y"][0], float(y.min()), places=5)
        self.assertAlmostEqual(ranges["y"][1], float(y.max()), places=5)
        percentile = calibrate(model, xs, "percentile")
        self.assertGreaterEqual(percentile["y"][0], ranges["y"][0])
        self.assertLessEqual(percentile["y"][1], ranges["y"][1])

    def test_quantized_convs_bit_exact_and_close_to_float(self):
        model = conv_model()
        ranges = calibrate(model, samples(8))
        for per_channel in (True, False):
            with self.subTest(per_channel=per_channel):
                q = convert_model(model, {"x": SHAPE}, ["y"], data_type="uint8",
                                  quantize=QuantizeSettings(ranges=ranges,
                                                            per_channel=per_channel))
                types = [(op.type, {a.name: a.i for a in op.arg}.get("T")) for op in q.net_def.op]
                self.assertEqual(types, [("Quantize", None), ("Conv2D", DT_UINT8),
                                         ("Conv2D", DT_UINT8), ("Dequantize", None)])
                for x in samples(3, offset=50):
                    got = mace_run(q, x)
                    np.testing.assert_array_equal(got, simulate(q.net_def, q.weights, x))
                    self.assertGreater(cosine(got, ort_run(model, {"x": x})[0]), 0.99)

    def test_ops_without_uint8_kernel_stay_float(self):
        model = conv_model("Sigmoid")
        ranges = calibrate(model, samples(4))
        q = convert_model(model, {"x": SHAPE}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges))
        ops = [(op.type, list(op.input)[:1], list(op.output)) for op in q.net_def.op]
        self.assertEqual(ops, [("Quantize", ["x"], ["x_u8"]), ("Conv2D", ["x_u8"], ["r1_u8"]),
                               ("Dequantize", ["r1_u8"], ["r1"]), ("Conv2D", ["r1"], ["y"])])
        x = samples(1, offset=7)[0]
        self.assertGreater(cosine(mace_run(q, x), ort_run(model, {"x": x})[0]), 0.999)

    def test_unknown_and_missing_range_names(self):
        model = conv_model()
        ranges = calibrate(model, samples(2))
        with self.assertRaisesRegex(ConversionError, "names tensor.* the model does not have: "
                                                     "'ghost'"):
            convert_model(model, {"x": SHAPE}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges={**ranges, "ghost": (0.0, 1.0)}))
        del ranges["r1"]
        with self.assertRaisesRegex(ConversionError, "tensor 'r1' needs a range"):
            convert_model(model, {"x": SHAPE}, ["y"], data_type="uint8",
                          quantize=QuantizeSettings(ranges=ranges))

    def test_onnxruntime_quantized_models(self):
        """QDQ (QuantizeLinear/DequantizeLinear around Conv) and QOperator
        (QLinearConv) models from quantize_static, per tensor and per channel."""
        from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                              quantize_static)
        calibration_set = samples(8)

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.feeds = iter({"x": x} for x in calibration_set)

            def get_next(self):
                return next(self.feeds, None)

        for quant_format, per_channel in ((QuantFormat.QDQ, False), (QuantFormat.QDQ, True),
                                          (QuantFormat.QOperator, False),
                                          (QuantFormat.QOperator, True)):
            with self.subTest(quant_format=quant_format, per_channel=per_channel), \
                    tempfile.TemporaryDirectory() as tmp:
                source, target = Path(tmp) / "f.onnx", Path(tmp) / "q.onnx"
                onnx.save(conv_model(), str(source))
                # reduce_range: see HOST_HAS_VNNI.
                quantize_static(str(source), str(target), Reader(), quant_format=quant_format,
                                per_channel=per_channel, activation_type=QuantType.QUInt8,
                                weight_type=QuantType.QInt8, reduce_range=not HOST_HAS_VNNI)
                qdq = onnx.load(str(target))
                q = convert_model(qdq, {"x": SHAPE}, ["y"], data_type="uint8",
                                  quantize=QuantizeSettings())
                uint8_convs = [op for op in q.net_def.op if op.type == "Conv2D"
                               and any(a.name == "T" and a.i == DT_UINT8 for a in op.arg)]
                self.assertEqual(len(uint8_convs), 2)
                scale = output_scale(target, "y")
                import onnxruntime
                session = onnxruntime.InferenceSession(str(target),
                                                       providers=["CPUExecutionProvider"])
                for x in samples(4, offset=30):
                    got = mace_run(q, x)
                    want = session.run(None, {"x": x})[0]
                    self.assertGreaterEqual(within_one_quantum(got, want, scale), 0.99)
                    self.assertGreater(cosine(got, want), 0.999)


@unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
class WorkflowTest(unittest.TestCase):
    """tools/converter.py convert on a deployment file with quantize: 1."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        onnx.save(conv_model(), str(self.dir / "m.onnx"))
        (self.dir / "calib").mkdir()
        for index, x in enumerate(samples(4)):
            np.save(self.dir / "calib" / f"{index}.npy", x)
        self.env = mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(self.dir / "build"),
                                                "MACE_RUN": str(MACE_RUN)})
        self.env.start()

    def tearDown(self):
        self.env.stop()
        self.tmp.cleanup()

    def convert(self, extra: str) -> tuple[int, str, str]:
        import hashlib
        sha = hashlib.sha256((self.dir / "m.onnx").read_bytes()).hexdigest()
        config = self.dir / "q.yml"
        config.write_text(textwrap.dedent(f"""\
            library_name: q
            target_abis: [host]
            build_type: proto
            models:
              m:
                platform: onnx
                model_file_path: {self.dir / 'm.onnx'}
                model_sha256_checksum: {sha}
                runtime: cpu
                input_tensors: x
                input_shapes: 1,3,9,7
                output_tensors: y
                output_shapes: 1,5,5,4
                quantize: 1
            """) + textwrap.indent(textwrap.dedent(extra), " " * 4))
        from mace_converter import cli
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["convert", "--config", str(config)])
        return status, out.getvalue(), err.getvalue()

    def test_calibrates_then_reads_the_range_file_back(self):
        status, out, err = self.convert("calibration_inputs: calib\n")
        self.assertEqual(status, 0, err)
        self.assertIn("calibration: 4 input(s) from calib", out)
        self.assertNotIn("WARNING", out)
        self.assertIn("uint8: 2 op(s) quantized", out)
        work = self.dir / "build" / ".work" / "q" / "models"
        ranges = read_ranges(work / "m.ranges")
        self.assertEqual(set(ranges), {"x", "r1", "y"})
        graph = (work / "m.pb").read_bytes()
        (self.dir / "kept.ranges").write_text(format_ranges(ranges))
        status, out, err = self.convert(f"quantize_range_file: {self.dir / 'kept.ranges'}\n")
        self.assertEqual(status, 0, err)
        self.assertIn("activation ranges from", out)
        self.assertEqual((work / "m.pb").read_bytes(), graph)

    def test_kl_ranges_lie_within_min_max(self):
        status, out, err = self.convert("calibration_inputs: calib\nquantize_range_method: kl\n")
        self.assertEqual(status, 0, err)
        self.assertIn("tensor ranges (KL divergence)", out)
        work = self.dir / "build" / ".work" / "q" / "models"
        divergence = read_ranges(work / "m.ranges")
        widest = merge_ranges([calibrate(conv_model(), samples(4))])
        for name, (low, high) in divergence.items():
            self.assertTrue(widest[name][0] <= low <= high <= widest[name][1], name)

    def test_random_calibration_warns(self):
        status, out, err = self.convert("")
        self.assertEqual(status, 0, err)
        self.assertIn("WARNING: model m has no calibration_inputs", out)
        self.assertIn("weak stand-in", out)

    def test_bad_inputs_are_one_message(self):
        np.save(self.dir / "calib" / "9.npy", np.zeros([1, 3, 9, 8], np.float32))
        cases = {"calibration_inputs: calib\n": "9.npy: input 'x' has shape [1, 3, 9, 8]",
                 "quantize_range_file: nowhere.txt\n": "nowhere.txt: does not exist"}
        (self.dir / "bad.ranges").write_text("x@@0,1\nghost@@0,1\n")
        cases[f"quantize_range_file: {self.dir / 'bad.ranges'}\n"] = \
            "names tensor(s) the model does not have: 'ghost'"
        for extra, needle in cases.items():
            with self.subTest(extra=extra):
                status, _, err = self.convert(extra)
                self.assertEqual(status, 1)
                self.assertIn(needle, err)
                self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()
