"""`converter.py run --validate_layers`, and `run --validate` when an output
fails: the engine's intermediate tensors (mace_run --output_node naming
them) against onnxruntime's, naming the first op that diverges.

A small ONNX model of eight nodes (conv + relu twice, max pool, conv,
sigmoid, mul) is converted; the tests then break one op of the converted
NetDef (an activation argument, or a weight in the .data file with the
checksum made anew) and check that the report names exactly that op. Needs
the host mace_run (MACE_RUN, default bazel-bin/mace/tools/mace_run).
"""
from __future__ import annotations

import re
import unittest

import numpy as np

from mace_converter import conversion, layer_validate, run
from mace_converter.config import load_config
from mace_converter.crc32c import crc32c
from mace_tools import proto
from tests.onnx_cli import OnnxCliFixture, serialized

SHAPE = (1, 3, 8, 8)
OUT_SHAPE = (1, 4, 4, 4)
SEED = 41


def layered_onnx() -> bytes:
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(SEED)
    shapes = {"w1": (6, 3, 3, 3), "b1": (6,), "w2": (6, 6, 3, 3), "b2": (6,),
              "w3": (4, 6, 1, 1), "b3": (4,)}
    weights = [numpy_helper.from_array((rng.standard_normal(s) * 0.5).astype(np.float32), k)
               for k, s in shapes.items()]
    node = helper.make_node
    nodes = [node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
             node("Relu", ["c1"], ["r1"], name="relu1"),
             node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
             node("Relu", ["c2"], ["r2"], name="relu2"),
             node("MaxPool", ["r2"], ["p"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
             node("Conv", ["p", "w3", "b3"], ["c3"], name="conv3"),
             node("Sigmoid", ["c3"], ["s3"], name="sigmoid"),
             node("Mul", ["s3", "c3"], ["y"], name="swish")]
    graph = helper.make_graph(
        nodes, "layered", [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, OUT_SHAPE)], weights)
    return serialized(graph)


class ValidateLayersTest(OnnxCliFixture):
    @classmethod
    def setUpClass(cls):
        cls.start()
        model = cls.dir / "layered.onnx"
        model.write_bytes(layered_onnx())
        cls.config = cls.deployment("layered", "layered", model, f"""\
            input_tensors: x
            input_shapes: {','.join(map(str, SHAPE))}
            output_tensors: y
            output_shapes: {','.join(map(str, OUT_SHAPE))}
            """)

    def setUp(self):
        # Each test starts from the model as converted.
        status, text = self.cli("convert", self.config)
        self.assertEqual(status, 0, text)
        config = load_config(self.config)
        model = config.models["layered"]
        self.graph, self.weights = run.model_files(config, model,
                                                   conversion.load_artifacts(config, model))

    def net(self):
        net = proto.load().NetDef()
        net.ParseFromString(self.graph.read_bytes())
        return net

    def first_divergence(self, text: str) -> str:
        found = re.findall(r"first diverging op: (.*)", text)
        self.assertEqual(len(found), 1, text)
        return found[0]

    def test_an_intact_model_has_no_diverging_op(self):
        status, text = self.cli("run", self.config, "--validate_layers")
        self.assertEqual(status, 0, text)
        # r1, r2, p, c3, s3 and y; c1 and c2 are fused away.
        self.assertIn("per-layer: compared 6 op output(s) with the source model's tensors "
                      "of the same name", text)
        self.assertIn("per-layer: skipped 2 source tensor(s) with no engine tensor of that "
                      "name (fused or folded ops): c1, c2", text)
        self.assertIn("per-layer: no compared op output diverges", text)
        self.assertNotIn("first diverging op", text)

    def test_a_changed_activation_names_its_op(self):
        net = self.net()
        conv2 = next(op for op in net.op if op.name == "conv2")
        self.assertEqual(conv2.type, "Conv2D")
        activation = next(arg for arg in conv2.arg if arg.name == "activation")
        self.assertEqual(activation.s, b"RELU")
        activation.s = b"TANH"
        self.graph.write_bytes(net.SerializeToString())
        # Without --validate_layers: the failing output starts the per-layer mode.
        status, text = self.cli("run", self.config, "--validate")
        self.assertEqual(status, 1, text)
        self.assertRegex(text, r"y: cosine [-\d.]+ \(>= 0.999\).*FAIL")
        self.assertRegex(self.first_divergence(text),
                         r"^#1 Conv2D 'conv2' \(source node 'relu2', Relu\), output 'r2': "
                         r"cosine [-\d.]+ \(>= 0.999\), max abs error [\d.e+-]+$")

    def test_a_changed_weight_names_its_op(self):
        net = self.net()
        weight = next(t for t in net.tensors if t.name == "w3")
        data = bytearray(self.weights.read_bytes())
        start = weight.offset
        values = np.frombuffer(bytes(data[start:start + 4 * 24]), dtype="<f4").copy()
        values[:6] = -values[:6]     # the first output channel of conv3
        data[start:start + values.nbytes] = values.tobytes()
        self.weights.write_bytes(bytes(data))
        net.weights_crc32c = crc32c(bytes(data))
        self.graph.write_bytes(net.SerializeToString())
        status, text = self.cli("run", self.config, "--validate_layers")
        self.assertEqual(status, 1, text)
        self.assertRegex(self.first_divergence(text),
                         r"^#3 Conv2D 'conv3' \(source node 'conv3', Conv\), output 'c3': ")


class ReportTest(unittest.TestCase):
    def test_each_engine_tensor_is_compared_or_counted_as_skipped(self):
        rng = np.random.default_rng(SEED)
        values = {name: rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
                  for name in ("a", "b", "c", "z")}
        tensors = [layer_validate.EngineTensor(name, f"op_{name}", "Conv2D", index)
                   for index, name in enumerate("abcd")]
        engine = {"a": values["a"] + 1e-6, "b": values["b"].reshape(2, 9),
                  "c": -values["c"], "d": values["a"]}
        source = layer_validate.SourceTensors(
            {name: values[name] for name in "abcz"},
            {name: (f"node_{name}", "Conv") for name in "abcz"})
        report = layer_validate.compare_layers(tensors, engine, source, 0.999)
        self.assertEqual([t.name for t, _ in report.compared], ["a", "c"])
        self.assertEqual((report.no_source, report.source_only), (1, ["z"]))
        self.assertEqual(report.unmapped, ["b (engine shape [2, 9], source [1, 2, 3, 3])"])
        lines = layer_validate.describe(report, 0.999)
        self.assertEqual(lines[0], "per-layer: compared 2 op output(s) with the source "
                                   "model's tensors of the same name")
        self.assertEqual(lines[-1], "first diverging op: #2 Conv2D 'op_c' (source node "
                                    "'node_c', Conv), output 'c': cosine -1.000000 (>= 0.999), "
                                    f"max abs error {2 * np.abs(values['c']).max():.3g}")


class LayoutTest(unittest.TestCase):
    def test_engine_tensors_are_laid_out_as_the_source_ones(self):
        nchw = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
        same = layer_validate.in_source_layout(nchw, (2, 3, 4, 5))
        self.assertIs(same, nchw)
        np.testing.assert_array_equal(layer_validate.in_source_layout(nchw, (2, 4, 5, 3)),
                                      nchw.transpose(0, 2, 3, 1))
        flat = np.arange(6, dtype=np.float32).reshape(1, 6, 1, 1)
        self.assertEqual(layer_validate.in_source_layout(flat, (1, 6)).shape, (1, 6))
        self.assertIsNone(layer_validate.in_source_layout(nchw, (6, 20)))


if __name__ == "__main__":
    unittest.main()
