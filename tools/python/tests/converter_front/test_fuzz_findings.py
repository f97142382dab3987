"""Inputs the converter fuzzer (tools/converter_fuzz.py) found ending in a
traceback; each must now be a ConversionError naming what is wrong. Also a
short fixed-seed run of every fuzz target."""
import random
import tempfile
import unittest
from pathlib import Path

import numpy as np
from onnx import helper

from mace_converter import protos
from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.ir import Graph
from mace_converter.serialize import serialize
from mace_tools import converter_fuzz
from tests.converter_front.helpers import convert_model, make_model
from zoo import tiny


def _convert_tf(graph_def) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pb"
        path.write_bytes(graph_def.SerializeToString())
        convert(ConvertOptions(
            platform="tensorflow", model_file=path, weight_file=None,
            inputs=[TensorSpec("input", list(tiny.TF_INPUT), data_format="NHWC")],
            outputs=[TensorSpec("prob", [1, 10], data_format="NONE")]))


def _tiny_tf():
    schema = protos.load("tf_graph")
    graph_def = schema.GraphDef()
    with tempfile.TemporaryDirectory() as tmp:
        graph_def.ParseFromString(tiny.write_tensorflow(Path(tmp))[0].read_bytes())
    return graph_def


class FuzzFindingsTest(unittest.TestCase):
    def test_onnx_node_name_that_is_not_utf8(self):
        model = make_model([helper.make_node("Relu", ["x"], ["y"], name="act")],
                           {"x": [1, 3, 4, 4]}, {"y": None})
        data = model.SerializeToString().replace(b"act", b"\x80ct")
        model.ParseFromString(data)
        with self.assertRaises(ConversionError) as caught:
            convert_model(model, {"x": [1, 3, 4, 4]}, ["y"])
        self.assertIn("ONNX node 0", str(caught.exception))
        self.assertIn("is not UTF-8 text", str(caught.exception))

    def test_shapes_and_arguments_beyond_int64(self):
        # Shape inference on a corrupt model can compute dims past int64.
        for shape, args in (([1, 2**63 + 6], {}), ([1, 4], {"axis": 2**64}),
                            ([1, 4], {"pads": [0, -2**63 - 1]})):
            graph = Graph("g", "model.onnx")
            graph.add_input("x", [1, 4])
            op = graph.add_op("Activation", ["x"], ["y"], name="act", args=args, infer=False)
            graph.tensor("y").shape = tuple(shape)
            graph.outputs.append("y")
            with self.assertRaises(ConversionError) as caught:
                serialize(graph)
            self.assertIn(f"op '{op.name}'", str(caught.exception))
            self.assertIn("does not fit in int64", str(caught.exception))

    def test_per_channel_parameters_of_the_wrong_length(self):
        # A Caffe Scale blob of 1280 or 0 values on 8 channels reached the
        # affine fold, whose numpy broadcast failed.
        for op_type, lengths in (("BatchNorm", (8, 1280)), ("BatchNorm", (0, 8)),
                                 ("BiasAdd", (5,))):
            graph = Graph("g", "model.onnx")
            graph.add_input("x", [1, 8, 4, 4])
            names = [graph.add_const(f"p{i}", np.ones(n, np.float32))
                     for i, n in enumerate(lengths)]
            with self.assertRaises(ConversionError) as caught:
                graph.add_op(op_type, ["x"] + names, ["y"], name="affine")
            bad = [n for n in lengths if n != 8][0]
            self.assertIn(f"has {bad} values for 8 channels", str(caught.exception))
        graph = Graph("g", "model.onnx")
        graph.add_input("x", [1, 8, 4, 4])
        graph.add_op("BatchNorm", ["x", graph.add_const("s", np.ones(8, np.float32)),
                                   graph.add_const("o", np.ones(8, np.float32))], ["y"])
        self.assertEqual(graph.shape("y"), (1, 8, 4, 4))

    def test_tf_attribute_string_that_is_not_utf8(self):
        graph_def = _tiny_tf()
        node = next(n for n in graph_def.node if "padding" in n.attr)
        node.attr["padding"].s = b"\x80SAME"
        with self.assertRaises(ConversionError) as caught:
            _convert_tf(graph_def)
        self.assertIn(f"node '{node.name}'", str(caught.exception))
        self.assertIn("malformed attribute", str(caught.exception))

    def test_tf_tensor_content_that_does_not_fit_its_shape(self):
        graph_def = _tiny_tf()
        node = next(n for n in graph_def.node
                    if n.op == "Const" and n.attr["value"].tensor.tensor_content)
        tensor = node.attr["value"].tensor
        tensor.tensor_content = tensor.tensor_content[:-4]
        with self.assertRaises(ConversionError) as caught:
            _convert_tf(graph_def)
        self.assertIn("tensor_content has", str(caught.exception))


class ConverterFuzzSmokeTest(unittest.TestCase):
    """A few hundred seeded mutations per parser: converter errors only."""

    def test_every_target(self):
        for name, target in converter_fuzz.targets().items():
            if target.generate is not None:
                continue  # structure-aware: tests/converter_cli/test_structure_fuzz.py
            with self.subTest(target=name):
                tally, findings = converter_fuzz.fuzz(target, seed=1, seconds=600,
                                                      max_cases=200, timeout=60)
                self.assertEqual(sum(tally.values()), 200)
                self.assertGreater(tally["error"], 50, tally)
                self.assertEqual(findings, [], "\n".join(f.detail for f in findings))

    def test_onnx_field_mutation_of_names_that_are_not_utf8(self):
        # A byte mutation can leave a name that is not UTF-8, which
        # protobuf reads back as bytes and refuses to assign to another
        # string field; the field mutator then leaves the input to the
        # byte mutators rather than stop the whole run.
        graph = helper.make_graph(
            [helper.make_node("Relu", ["x"], ["yq"]), helper.make_node("Relu", ["yq"], ["z"])],
            "g", [helper.make_tensor_value_info("x", 1, [1])],
            [helper.make_tensor_value_info("z", 1, [1])])
        data = helper.make_model(graph).SerializeToString().replace(b"yq", b"\xffq")
        onnx_target = converter_fuzz.targets()["onnx"]
        for seed in range(64):
            mutated = onnx_target.structured(data, random.Random(seed))
            self.assertIsInstance(mutated, bytes)


if __name__ == "__main__":
    unittest.main()
