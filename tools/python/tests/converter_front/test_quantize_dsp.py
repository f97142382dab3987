"""runtime: dsp in the converter: the deployment keys, uint8 weights per
tensor and int8 weights per channel, and one error naming every op the
Hexagon DSP lacks."""
from __future__ import annotations

import tempfile
import textwrap
import unittest
from pathlib import Path

import numpy as np
from onnx import helper

from mace_converter import dsp_ops
from mace_converter.api import ConversionError
from mace_converter.config import ConfigError, load_config
from mace_converter.quantize.graph_pass import QuantizeSettings
from mace_tools import proto
from tests.converter_front.helpers import convert_model, initializer, make_model, rng
from tests.converter_front.test_quantize import SHAPE, conv_model

RANGES = {"x": (-1.0, 1.0), "r1": (0.0, 3.0), "y": (0.0, 1.0)}


def dsp_convert(model, outputs=("y",), ranges=None):
    return convert_model(model, {"x": SHAPE}, list(outputs), runtime="dsp", data_type="uint8",
                         quantize=QuantizeSettings(ranges=dict(ranges or RANGES),
                                                   per_channel=False))


class DeploymentTest(unittest.TestCase):
    BASE = """\
        library_name: q
        target_abis: [host]
        build_type: proto
        models:
          m:
            platform: onnx
            model_file_path: m.onnx
            model_sha256_checksum: {sha}
            runtime: dsp
            input_tensors: x
            input_shapes: 1,3,9,7
            output_tensors: y
            output_shapes: 1,5,5,4
        """

    def load(self, extra: str = ""):
        text = textwrap.dedent(self.BASE).format(sha="a" * 64)
        text += textwrap.indent(textwrap.dedent(extra), " " * 4)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "q.yml"
            path.write_text(text)
            return load_config(path).models["m"]

    def test_dsp_quantizes_by_default(self):
        for extra in ("", "quantize: 1\n", "data_type: uint8\n",
                      "quantize: 1\nquantize_range_method: kl\n"):
            with self.subTest(extra=extra):
                model = self.load(extra)
                self.assertEqual(model.data_type, "uint8")
                self.assertIsNotNone(model.quantize)
                self.assertEqual(model.devices(), ["dsp"])

    def test_dsp_without_quantization_is_refused(self):
        with self.assertRaises(ConfigError) as caught:
            self.load("quantize: 0\n")
        self.assertIn("models.m.quantize: runtime dsp runs uint8 models", str(caught.exception))


class DspOpsTest(unittest.TestCase):
    def test_weights_are_uint8_per_tensor(self):
        q = dsp_convert(conv_model(), ranges={"x": (-1.0, 1.0), "r1": (0.0, 3.0),
                                              "y": (0.0, 6.0)})
        pb = proto.load()
        self.assertEqual([op.type for op in q.net_def.op],
                         ["Quantize", "Conv2D", "Conv2D", "Dequantize"])
        weights = {t.name: t for t in q.net_def.tensors}
        for op in q.net_def.op[1:3]:
            self.assertEqual(weights[op.input[1]].data_type, pb.DT_UINT8, op.name)
        self.assertEqual(dsp_ops.unsupported_ops(q.net_def), [])

    def test_int8_per_channel_weights_are_accepted(self):
        q = convert_model(conv_model(), {"x": SHAPE}, ["y"], runtime="dsp", data_type="uint8",
                          quantize=QuantizeSettings(ranges={"x": (-1.0, 1.0), "r1": (0.0, 3.0),
                                                            "y": (0.0, 6.0)},
                                                    per_channel=True))
        pb = proto.load()
        weights = {t.name: t for t in q.net_def.tensors}
        for op in q.net_def.op[1:3]:
            self.assertEqual(weights[op.input[1]].data_type, pb.DT_INT8, op.name)
        self.assertEqual(dsp_ops.unsupported_ops(q.net_def), [])

    def test_a_float_tail_runs_on_the_cpu(self):
        # The second convolution, with a fused Sigmoid, stays float: it reads
        # only a Dequantize output, so the engine runs it on the CPU.
        q = dsp_convert(conv_model("Sigmoid"))
        self.assertEqual([op.type for op in q.net_def.op],
                         ["Quantize", "Conv2D", "Dequantize", "Conv2D"])
        self.assertEqual(dsp_ops.unsupported_ops(q.net_def), [])

    def test_ops_the_dsp_lacks_run_on_the_cpu_between_segments(self):
        g = rng(3)
        inits = [initializer(f"w{i}", g.normal(0, 0.4, (4, c, 1, 1)).astype(np.float32))
                 for i, c in ((1, 3), (2, 4), (3, 4))]
        nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"]),
                 helper.make_node("Relu", ["c1"], ["r1"]),
                 helper.make_node("Transpose", ["r1"], ["t1"], perm=[0, 1, 3, 2]),
                 helper.make_node("Conv", ["t1", "w2"], ["c2"]),
                 helper.make_node("Sigmoid", ["c2"], ["s2"]),
                 helper.make_node("Conv", ["s2", "w3"], ["c3"]),
                 helper.make_node("Relu", ["c3"], ["y"])]
        model = make_model(nodes, {"x": SHAPE}, {"y": None}, inits)
        q = dsp_convert(model, ranges={"x": (-1.0, 1.0), "r1": (0.0, 2.0), "t1": (0.0, 2.0),
                                       "s2": (0.0, 1.0), "y": (0.0, 2.0)})
        placed = dsp_ops.placement(q.net_def)
        sides = [(op.type, op.on_dsp) for op in placed]
        # The first Conv on the DSP, the Transpose on the CPU, the float
        # Conv (with its fused Sigmoid) on the CPU, the last Conv on the DSP.
        self.assertEqual(sides, [("Quantize", False), ("Conv2D", True), ("Transpose", False),
                                 ("Dequantize", False), ("Conv2D", False), ("Quantize", False),
                                 ("Conv2D", True), ("Dequantize", False)])
        self.assertEqual(dsp_ops.segments(placed), 2)
        self.assertEqual(dsp_ops.unsupported_ops(q.net_def),
                         ["transpose_2 (Transpose): no DSP kernel"])
        lines = dsp_ops.report(q.net_def, "m")
        self.assertEqual(lines[0], "m: runtime dsp places 2 op(s) on the DSP in 2 segment(s) "
                                   "and 6 on the CPU")
        self.assertIn("(Transpose): no DSP kernel", "\n".join(lines))
        self.assertIn("model: runtime dsp places 2 op(s)", "\n".join(q.log))

    def test_nothing_for_the_dsp_is_refused(self):
        pb = proto.load()
        net = pb.NetDef()
        net.input_info.add(name="x")
        for name, op_type, inputs, t in (("q", "Quantize", ["x"], pb.DT_UINT8),
                                         ("s", "Transpose", ["xq"], pb.DT_UINT8),
                                         ("d", "Dequantize", ["s"], pb.DT_FLOAT)):
            o = net.op.add(name=name, type=op_type)
            o.input.extend(inputs)
            o.output.append(name if name != "q" else "xq")
            o.arg.add(name="T", i=t)
        with self.assertRaises(ConversionError) as caught:
            dsp_ops.report(net, "m")
        text = str(caught.exception)
        self.assertIn("the Hexagon DSP can run no op of m", text)
        self.assertIn("CPU: s (Transpose): no DSP kernel", text)
        self.assertIn("CPU: q (Quantize): converts between float and uint8", text)

    def test_rules_on_op_arguments(self):
        pb = proto.load()
        net = pb.NetDef()
        weight = net.tensors.add(name="w", data_type=pb.DT_UINT8, dims=[2, 4, 3, 3])
        del weight
        net.input_info.add(name="x")
        net.output_info.add(name="y")

        def op(op_type, inputs, **args):
            o = net.op.add(name=f"{op_type.lower()}{len(net.op)}", type=op_type)
            o.input.extend(inputs)
            o.output.append(f"t{len(net.op)}")
            o.output_shape.add(dims=[1, 4, 5, 5])
            o.arg.add(name="T", i=pb.DT_UINT8)
            for name, value in args.items():
                if isinstance(value, list):
                    o.arg.add(name=name, ints=value)
                else:
                    o.arg.add(name=name, i=value)
            return o

        op("Quantize", ["x"])
        op("Conv2D", ["t1", "w"], group=2)
        op("DepthwiseConv2d", ["t1", "w"])
        op("Pooling", ["t1"], ceil_mode=1)
        op("Eltwise", ["t1", "t2"], type=4)
        op("Concat", ["t1", "t2"], axis=2)
        op("Softmax", ["t1"], use_log=1)
        op("Pooling", ["t1"], kernels=[2, 2])
        op("Eltwise", ["t1", "t2"], type=0)
        op("Concat", ["t1", "t2"], axis=-3)
        problems = dsp_ops.unsupported_ops(net)
        self.assertEqual(problems, [
            "conv2d1 (Conv2D): grouped convolution",
            "depthwiseconv2d2 (DepthwiseConv2d): a depthwise channel multiplier above 1",
            "pooling3 (Pooling): ceil_mode",
            "eltwise4 (Eltwise): the DSP has SUM, SUB and PROD only",
            "concat5 (Concat): the DSP concatenates channels of 4-D tensors only",
            "softmax6 (Softmax): log-softmax"])


    def test_concat_needs_its_inputs_quantized_as_its_output(self):
        pb = proto.load()
        net = pb.NetDef()
        net.input_info.add(name="x", scale=0.1, zero_point=3)

        def op(name, op_type, inputs, scale, zero_point):
            o = net.op.add(name=name, type=op_type)
            o.input.extend(inputs)
            o.output.append(name)
            o.arg.add(name="T", i=pb.DT_UINT8)
            o.quantize_info.add(scale=scale, zero_point=zero_point)

        op("a", "Pooling", ["x"], 0.1, 3)
        op("b", "Pooling", ["x"], 0.2, 3)
        op("same", "Concat", ["a", "x"], 0.1, 3)
        op("mixed", "Concat", ["a", "b"], 0.1, 3)
        op("shifted", "Concat", ["a", "a"], 0.1, 4)
        self.assertEqual(dsp_ops.unsupported_ops(net), [
            "mixed (Concat): the DSP concatenates inputs quantized as the output only",
            "shifted (Concat): the DSP concatenates inputs quantized as the output only"])


if __name__ == "__main__":
    unittest.main()
