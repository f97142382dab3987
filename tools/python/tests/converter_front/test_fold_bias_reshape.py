"""A bias added after a MatMul on a rank-3 input (Reshape, FullyConnected,
Reshape in the engine) folds into the FullyConnected's bias; additions the
bias cannot take stay, and every form matches ONNX Runtime."""
from __future__ import annotations

import unittest

import numpy as np
from onnx import helper

from tests.converter_front.helpers import check_against_ort, initializer, make_model, rng

SHAPE = [2, 5, 8]
K = 6


def matmul_then(op: str, constant: np.ndarray, constant_first: bool = False,
                extra_reader: bool = False):
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"])]
    operands = ["c", "mm"] if constant_first else ["mm", "c"]
    nodes.append(helper.make_node(op, operands, ["y"]))
    outputs = {"y": SHAPE[:2] + [K]}
    if extra_reader:
        nodes.append(helper.make_node("Relu", ["mm"], ["z"]))
        outputs["z"] = SHAPE[:2] + [K]
    inits = [initializer("w", rng(3).normal(0, 0.5, (SHAPE[2], K)).astype(np.float32)),
             initializer("c", constant.astype(np.float32))]
    return make_model(nodes, {"x": SHAPE}, outputs, inits)


class FoldBiasThroughReshapeTest(unittest.TestCase):
    def convert(self, model):
        converted = check_against_ort(self, model, {"x": SHAPE})
        return [op.type for op in converted.net_def.op], converted.log

    def test_folds_into_the_fully_connected(self):
        bias = rng(4).normal(0, 1, K)
        cases = {
            "Add": matmul_then("Add", bias),
            "Add, bias first": matmul_then("Add", bias, constant_first=True),
            "Add of [1, 1, K]": matmul_then("Add", bias.reshape(1, 1, K)),
            "Add of a scalar": matmul_then("Add", np.array(0.75)),
            "Sub": matmul_then("Sub", bias),
        }
        for label, model in cases.items():
            with self.subTest(label):
                types, log = self.convert(model)
                self.assertIn("FullyConnected", types)
                self.assertNotIn("Eltwise", types)
                self.assertTrue(any("folded 1 bias Eltwise" in line for line in log), log)

    def test_additions_the_bias_cannot_take_stay(self):
        cases = {
            # The constant varies along the rows, or is subtracted from.
            "Add of [5, 1]": matmul_then("Add", rng(5).normal(0, 1, (SHAPE[1], 1))),
            "Sub from the constant": matmul_then("Sub", rng(6).normal(0, 1, K),
                                                 constant_first=True),
            "Sub from a scalar": matmul_then("Sub", np.array(0.5), constant_first=True),
            "Mul": matmul_then("Mul", rng(7).normal(0, 1, K)),
            # The product is read by another op as well.
            "two readers": matmul_then("Add", rng(8).normal(0, 1, K), extra_reader=True),
        }
        for label, model in cases.items():
            with self.subTest(label):
                types, log = self.convert(model)
                self.assertIn("Eltwise", types)
                self.assertFalse(any("bias Eltwise" in line for line in log), log)


if __name__ == "__main__":
    unittest.main()
