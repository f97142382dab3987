"""Bad input to quantization: each is a clear error naming the tensor, at
conversion (scales and zero points of imported quantized ONNX models, range
files that cannot be read) or at engine creation (a quantized model edited
by hand: int8 weights on an op with no int8 kernel, scales and zero points
out of range).

The engine tests need the host mace_run (MACE_RUN, default
bazel-bin/mace/tools/mace_run)."""
from __future__ import annotations

import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np
from onnx import helper

from mace_converter.api import ConversionError
from mace_converter.progress import REPO
from mace_converter.quantize.graph_pass import QuantizeSettings
from mace_converter.quantize.ranges import read_ranges
from mace_tools import proto
from tests.converter_front.helpers import convert_model, initializer, make_model, rng

MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))
SHAPE = [1, 3, 6, 6]
BAD_SCALES = (0.0, -0.5, float("nan"), float("inf"))


def dequantized_weight_model(w_scale, zero_point=None):
    """x -> Conv(DequantizeLinear(int8 w, w_scale[, zero_point])) -> y."""
    w = rng(1).integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
    inputs = ["wq", "ws"] + (["wz"] if zero_point is not None else [])
    inits = [initializer("wq", w), initializer("ws", np.asarray(w_scale, np.float32))]
    if zero_point is not None:
        inits.append(initializer("wz", zero_point))
    nodes = [helper.make_node("DequantizeLinear", inputs, ["w"], axis=0),
             helper.make_node("Conv", ["x", "w"], ["y"])]
    return make_model(nodes, {"x": SHAPE}, {"y": None}, inits)


def qlinear_conv_model(w_scale):
    w = rng(2).integers(-127, 128, (4, 3, 1, 1)).astype(np.int8)
    inits = [initializer("xs", np.array(0.01, np.float32)), initializer("xz", np.uint8(128)),
             initializer("W", w), initializer("Ws", np.asarray(w_scale, np.float32)),
             initializer("Wz", np.zeros(np.shape(w_scale), np.int8)),
             initializer("ys", np.array(0.05, np.float32)), initializer("yz", np.uint8(0))]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("QLinearConv", ["xq", "xs", "xz", "W", "Ws", "Wz", "ys", "yz"],
                              ["yq"]),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    return make_model(nodes, {"x": SHAPE}, {"y": None}, inits)


class ImportedScalesTest(unittest.TestCase):
    def convert(self, model, quantized=True):
        options = {"data_type": "uint8", "quantize": QuantizeSettings()} if quantized else {}
        return convert_model(model, {"x": SHAPE}, ["y"], **options)

    def test_bad_weight_scales_name_the_tensor(self):
        for scale in BAD_SCALES:
            for per_channel in (False, True):
                w_scale = [0.01, scale, 0.01, 0.01] if per_channel else scale
                with self.subTest(scale=scale, per_channel=per_channel):
                    for quantized in (False, True):
                        with self.assertRaisesRegex(
                                ConversionError, r"DequantizeLinear node .*: scale 'ws' holds "
                                                 r"(0\.0|-0\.5|nan|inf); a scale must be finite"):
                            self.convert(dequantized_weight_model(w_scale), quantized)
                    with self.assertRaisesRegex(ConversionError,
                                                r"QLinearConv node .*: w_scale 'Ws' holds"):
                        self.convert(qlinear_conv_model(w_scale))

    def test_zero_point_of_another_type(self):
        with self.assertRaisesRegex(ConversionError, "DequantizeLinear node: x_zero_point has "
                                                     "inconsistent type tensor.uint8."):
            self.convert(dequantized_weight_model(0.01, np.uint8(3)))

    def test_good_models_still_convert(self):
        self.convert(dequantized_weight_model([0.01, 0.02, 0.01, 0.03]))
        self.convert(qlinear_conv_model(0.01))


class RangeFileReadTest(unittest.TestCase):
    def test_directory_and_binary_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            binary = Path(tmp) / "ranges.bin"
            binary.write_bytes(b"\xff\xfe\x00x@@0,1")
            for path in (Path(tmp), binary):
                with self.subTest(path=path.name):
                    with self.assertRaisesRegex(ConversionError,
                                                f"quantize_range_file {path} cannot be read"):
                        read_ranges(path)


@unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
class EngineCreationTest(unittest.TestCase):
    """Hand-edited quantized models: mace_run fails at engine creation with
    a message naming the tensor."""

    @classmethod
    def setUpClass(cls):
        g = rng(3)
        nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
                 helper.make_node("Relu", ["c1"], ["r1"]),
                 helper.make_node("Conv", ["r1", "w2", "b2"], ["y"])]
        inits = [initializer("w1", g.normal(0, 0.4, (8, 3, 3, 3)).astype(np.float32)),
                 initializer("b1", g.normal(0, 0.2, 8).astype(np.float32)),
                 initializer("w2", g.normal(0, 0.4, (5, 8, 1, 1)).astype(np.float32)),
                 initializer("b2", g.normal(0, 0.2, 5).astype(np.float32))]
        cls.model = make_model(nodes, {"x": SHAPE}, {"y": None}, inits)
        ranges = {"x": (-1.0, 1.0), "r1": (0.0, 3.0), "y": (-4.0, 4.0)}
        cls.quantized = convert_model(cls.model, {"x": SHAPE}, ["y"], data_type="uint8",
                                      quantize=QuantizeSettings(ranges=ranges))
        cls.float = convert_model(cls.model, {"x": SHAPE}, ["y"])

    def expect_failure(self, net, weights, needle):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            (d / "m.pb").write_bytes(net.SerializeToString())
            (d / "m.data").write_bytes(weights)
            result = subprocess.run([str(MACE_RUN), f"--model_file={d / 'm.pb'}",
                                     f"--model_data_file={d / 'm.data'}"],
                                    capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn(needle, result.stderr)
        self.assertNotIn("Aborted", result.stderr)

    def copy(self, converted):
        net = type(converted.net_def)()
        net.CopyFrom(converted.net_def)
        return net

    def test_int8_filter_on_a_float_conv(self):
        net = self.copy(self.float)
        weight = next(t for t in net.tensors if t.name == "w2")
        weight.data_type = proto.load().DT_INT8
        weight.channel_scales.extend([0.01] * 5)
        self.expect_failure(net, self.float.weights, "'w2' is int8 but must be float32")

    def test_int8_operand_on_a_uint8_eltwise(self):
        net = self.copy(self.quantized)
        self.assertEqual([op.type for op in net.op],
                         ["Quantize", "Conv2D", "Conv2D", "Dequantize"])
        int8 = next(t.name for t in net.tensors if t.data_type == proto.load().DT_INT8)
        conv = net.op[2]
        add = type(conv)()
        add.CopyFrom(conv)
        add.name, add.type = "add", "Eltwise"
        del add.input[:], add.output[:], add.arg[:]
        add.input.extend([conv.output[0], int8])
        add.output.append("sum_u8")
        add.arg.add(name="T", i=2)
        add.arg.add(name="type", i=0)
        ops = list(net.op)
        ops[3].input[0] = "sum_u8"
        del net.op[:]
        net.op.extend(ops[:3] + [add, ops[3]])
        self.expect_failure(net, self.quantized.weights, f"'{int8}' is int8 but must be uint8")

    def test_scales_and_zero_points_out_of_range(self):
        for field, value, needle in (("zero_point", 300, "zero point 300"),
                                     ("zero_point", -1, "zero point -1"),
                                     ("scale", float("nan"), "scale nan"),
                                     ("scale", 0.0, "scale 0"),
                                     ("scale", -1.0, "scale -1")):
            with self.subTest(field=field, value=value):
                net = self.copy(self.quantized)
                info = net.op[1].quantize_info[0]
                setattr(info, field, value)
                self.expect_failure(net, self.quantized.weights, needle)
                self.expect_failure(net, self.quantized.weights, net.op[1].output[0])

    def test_bad_channel_scale_of_an_int8_filter(self):
        for value in (0.0, float("nan"), float("inf")):
            with self.subTest(value=value):
                net = self.copy(self.quantized)
                weight = next(t for t in net.tensors if t.data_type == proto.load().DT_INT8)
                weight.channel_scales[1] = value
                self.expect_failure(net, self.quantized.weights, f"'{weight.name}'")


if __name__ == "__main__":
    unittest.main()
