"""Models of an opset below 7 convert when every op they use kept its
definition through opset 7, and are refused, naming the op, otherwise."""
import unittest

import numpy as np
from onnx import TensorProto, helper

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model


def _model(op_type: str, opset: int, elem: int = TensorProto.BOOL):
    graph = helper.make_graph(
        [helper.make_node(op_type, ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", elem, [2, 3])],
        [helper.make_tensor_value_info("y", elem, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 3
    return model


class OldOpsetTest(unittest.TestCase):
    def test_not_of_opset_1_is_read_as_opset_7(self):
        converted = convert_model(_model("Not", 1), {"x": [2, 3]}, ["y"])
        x = np.array([[1, 0, 1], [0, 0, 1]], np.float32)
        got = run(converted.net_def, converted.weights, {"x": x})["y"]
        np.testing.assert_array_equal(got, 1 - x)

    def test_an_op_redefined_since_is_refused(self):
        # Relu lost its consumed_inputs attribute in opset 6.
        with self.assertRaisesRegex(ConversionError, "opset 5.*Relu changed its definition"):
            convert_model(_model("Relu", 5, TensorProto.FLOAT), {"x": [2, 3]}, ["y"])


if __name__ == "__main__":
    unittest.main()
