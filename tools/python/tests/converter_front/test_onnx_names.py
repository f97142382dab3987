"""A node may share its name with its output: the ops a node expands into
must not take that name before the node writes it."""
import unittest

import numpy as np
from onnx import helper

from tests.converter_front.helpers import check_against_ort, initializer, make_model, rng


class NodeNamedLikeItsOutputTest(unittest.TestCase):
    def test_batched_matmul_then_add(self):
        # A [1, 4, 6] x [6, 5] MatMul becomes Reshape, FullyConnected and
        # Reshape, the first named after the node.
        nodes = [helper.make_node("MatMul", ["x", "w"], ["matmul_1"], name="matmul_1"),
                 helper.make_node("Add", ["matmul_1", "b"], ["y"], name="add_1")]
        inits = [initializer("w", rng(1).standard_normal((6, 5)).astype(np.float32)),
                 initializer("b", rng(2).standard_normal(5).astype(np.float32))]
        check_against_ort(self, make_model(nodes, {"x": [1, 4, 6]}, {"y": [1, 4, 5]}, inits),
                          {"x": [1, 4, 6]})


if __name__ == "__main__":
    unittest.main()
