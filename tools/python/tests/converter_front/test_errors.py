"""User mistakes and unsupported models end in a ConversionError whose
message names the op, the node and the file: never a traceback."""
import tempfile
import unittest
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from tests.converter_front.helpers import convert_model, initializer, make_model


def _relu_model(opset=13):
    return make_model([helper.make_node("Relu", ["x"], ["y"], name="act")],
                      {"x": [1, 3, 4, 4]}, {"y": None}, opset=opset)


class ErrorTest(unittest.TestCase):
    def assert_message(self, parts, fn, *args, **kwargs):
        with self.assertRaises(ConversionError) as caught:
            fn(*args, **kwargs)
        for part in parts:
            self.assertIn(part, str(caught.exception))
        return str(caught.exception)

    def test_unsupported_op_names_type_node_index_and_file(self):
        nodes = [helper.make_node("Relu", ["x"], ["r"], name="first"),
                 helper.make_node("Det", ["r"], ["y"], name="the_det")]
        model = make_model(nodes, {"x": [4, 4]}, {"y": None})
        self.assert_message(["Det", "'the_det'", "node 1", "model.onnx", "not supported"],
                            convert_model, model, {"x": [4, 4]}, ["y"])

    def test_computed_shape_arguments(self):
        model = make_model([helper.make_node("Reshape", ["x", "s"], ["y"], name="r")],
                           {"x": [2, 6], "s": [2]}, {"y": None})
        model.graph.input[1].type.tensor_type.elem_type = TensorProto.INT64
        self.assert_message(["Reshape", "'r'", "shape", "must declare that shape"],
                            convert_model, model, {"x": [2, 6], "s": [2]}, ["y"])
        model = make_model([helper.make_node("ReduceSum", ["x", "a"], ["y"], name="sum")],
                           {"x": [2, 6], "a": [1]}, {"y": None})
        model.graph.input[1].type.tensor_type.elem_type = TensorProto.INT64
        self.assert_message(["ReduceSum", "'sum'", "axes", "must declare that shape"],
                            convert_model, model, {"x": [2, 6], "a": [1]}, ["y"])
        # A computed scale becomes the float-domain QuantizeLinear, but
        # QLinearMatMul to int8 with computed scales is refused.
        names = ["a", "s", "z", "b", "s", "z", "s", "zy"]
        model = make_model([helper.make_node("QLinearMatMul", names, ["y"], name="q")],
                           {"a": [2, 6], "s": [1], "z": [1], "b": [6, 2]}, {"y": [2, 2]},
                           [initializer("zy", np.zeros(1, np.int8))])
        for info in model.graph.input:
            if info.name != "s":
                info.type.tensor_type.elem_type = TensorProto.INT8
        model.graph.output[0].type.tensor_type.elem_type = TensorProto.INT8
        self.assert_message(["QLinearMatMul", "'q'", "run-time scales", "not supported"],
                            convert_model, model,
                            {"a": [2, 6], "s": [1], "z": [1], "b": [6, 2]}, ["y"])

    def test_malformed_attributes(self):
        model = make_model([helper.make_node("Conv", ["x", "w"], ["y"], name="c",
                                             pads=[1, 1])],
                           {"x": [1, 3, 4, 4]}, {"y": None},
                           [initializer("w", np.zeros((2, 3, 3, 3), np.float32))])
        self.assert_message(["Conv", "'c'", "pads"], convert_model, model,
                            {"x": [1, 3, 4, 4]}, ["y"])
        model = make_model([helper.make_node("Reshape", ["x", "s"], ["y"], name="r")],
                           {"x": [2, 3]}, {"y": None},
                           [initializer("s", np.array([4, 4], np.int64))])
        self.assert_message(["Reshape", "'r'", "cannot reshape"], convert_model, model,
                            {"x": [2, 3]}, ["y"])

    def test_shapes_that_do_not_fit(self):
        model = make_model([helper.make_node("Add", ["x", "z"], ["y"], name="add")],
                           {"x": [2, 3], "z": [4]}, {"y": None})
        # ONNX's checker finds it (strict shape inference).
        self.assert_message(["Add", "'add'", "Incompatible dimensions"], convert_model, model,
                            {"x": [2, 3], "z": [4]}, ["y"])

    def test_deployment_mistakes(self):
        model = _relu_model()
        self.assert_message(["'image'", "not an input", "x"], convert_model, model,
                            {"image": [1, 3, 4, 4]}, ["y"])
        self.assert_message(["[1, 3, 5, 5]", "[1, 3, 4, 4]"], convert_model, model,
                            {"x": [1, 3, 5, 5]}, ["y"])
        self.assert_message(["output 'nope'"], convert_model, model, {"x": [1, 3, 4, 4]},
                            ["nope"])
        self.assert_message(["winograd"], convert_model, model, {"x": [1, 3, 4, 4]}, ["y"],
                            winograd=3)
        self.assert_message(["data_type"], convert_model, model, {"x": [1, 3, 4, 4]}, ["y"],
                            data_type="int8")
        self.assert_message(["runtime"], convert_model, model, {"x": [1, 3, 4, 4]}, ["y"],
                            runtime="npu")

    def test_opset_out_of_range(self):
        # Relu was redefined in opset 6, so an opset-5 Relu cannot be read as opset 7.
        self.assert_message(["opset 5", "7 to", "Relu changed"], convert_model,
                            _relu_model(opset=5), {"x": [1, 3, 4, 4]}, ["y"])
        self.assert_message(["opset 23", "7 to"], convert_model, _relu_model(opset=23),
                            {"x": [1, 3, 4, 4]}, ["y"])

    def test_bad_files_and_platforms(self):
        with tempfile.TemporaryDirectory() as tmp:
            junk = Path(tmp) / "junk.onnx"
            junk.write_bytes(b"\x08\x07not a protobuf at all\xff\xff")
            options = ConvertOptions("onnx", junk, None, [TensorSpec("x", [1])], [])
            self.assert_message(["junk.onnx", "not a valid ONNX model"], convert, options)
            options.model_file = Path(tmp) / "missing.onnx"
            self.assert_message(["missing.onnx", "does not exist"], convert, options)
            path = Path(tmp) / "m.onnx"
            onnx.save(_relu_model(), str(path))
            options = ConvertOptions("mxnet", path, None, [], [])
            self.assert_message(["platform", "mxnet"], convert, options)
            options = ConvertOptions("caffe", path, Path(tmp) / "none.caffemodel", [], [])
            self.assert_message(["none.caffemodel"], convert, options)
            tf_junk = Path(tmp) / "junk.pb"
            tf_junk.write_bytes(b"\xff\xff\xff")
            options = ConvertOptions("tensorflow", tf_junk, None, [], [TensorSpec("y", [])])
            self.assert_message(["junk.pb", "GraphDef"], convert, options)


if __name__ == "__main__":
    unittest.main()
