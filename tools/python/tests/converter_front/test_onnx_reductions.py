"""Global pooling of every rank and the reductions that are a sum between
element-wise steps (ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum,
ReduceLogSumExp), against onnxruntime on the numpy runner and through the
engine (mace_run)."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper

from tests.converter_front.helpers import check_against_ort, ort_run, rng
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN

GLOBAL_CASES = [(op, shape) for op in ("GlobalAveragePool", "GlobalMaxPool")
                for shape in ([2, 5, 7], [1, 3, 1], [1, 3, 2, 4, 5], [2, 3, 4, 6])]
REDUCE_CASES = [(op, axes, keep) for op in ("ReduceL1", "ReduceL2", "ReduceSumSquare",
                                            "ReduceLogSum", "ReduceLogSumExp")
                for axes in ([1], [0, 2], [-1], None) for keep in (0, 1)]


def model(op: str, shape: list[int], opset: int = 13, **attrs):
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], **attrs)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(
                                  "y", TensorProto.INT64 if op.startswith("Arg")
                                  else TensorProto.FLOAT, None)])
    result = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    result.ir_version = 8
    return result


def feeds(shape: list[int], seed: int) -> dict[str, np.ndarray]:
    # Positive values keep ReduceLogSum defined; the scale makes
    # ReduceLogSumExp overflow float32 unless the maximum is taken out.
    return {"x": (rng(seed).uniform(0.1, 3.0, shape) * 40).astype(np.float32)}


class ReductionsTest(unittest.TestCase):
    def test_global_pooling_of_every_rank(self):
        for index, (op, shape) in enumerate(GLOBAL_CASES):
            with self.subTest(op=op, shape=shape):
                check_against_ort(self, model(op, shape), {"x": shape},
                                  feeds=feeds(shape, index))

    def test_sum_reductions(self):
        shape = [2, 3, 4]
        for index, (op, axes, keep) in enumerate(REDUCE_CASES):
            attrs = {"keepdims": keep} if axes is None else {"axes": axes, "keepdims": keep}
            with self.subTest(op=op, axes=axes, keepdims=keep):
                check_against_ort(self, model(op, shape, **attrs), {"x": shape},
                                  feeds=feeds(shape, 100 + index), rtol=1e-4, atol=1e-4)

    def test_axes_as_an_input(self):
        shape = [2, 3, 4]
        onnx_model = model("ReduceL2", shape, opset=18)
        onnx_model.graph.node[0].input.append("axes")
        onnx_model.graph.initializer.append(
            helper.make_tensor("axes", TensorProto.INT64, [1], [2]))
        check_against_ort(self, onnx_model, {"x": shape}, feeds=feeds(shape, 200))

    def test_engine(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
        cases = [(op, shape, {}) for op, shape in GLOBAL_CASES if len(shape) != 4] + \
            [(op, [2, 3, 4], {"axes": [1], "keepdims": 0}) for op, _, _ in REDUCE_CASES[::8]] + \
            [(op, [2, 3, 4], {"keepdims": 0}) for op in ("ReduceSum", "ReduceMax", "ReduceL2")] + \
            [(op, [5], {"keepdims": 0}) for op in ("ArgMax", "ArgMin")]
        for index, (op, shape, attrs) in enumerate(cases):
            with self.subTest(op=op, shape=shape):
                onnx_model = model(op, shape, **attrs)
                x = feeds(shape, 300 + index)
                converted = check_against_ort(self, onnx_model, {"x": shape}, feeds=x,
                                              rtol=1e-4, atol=1e-4)
                want = ort_run(onnx_model, x)[0]
                got = run_converted(self, converted, x)["y"]
                # Reducing every axis without keepdims gives a rank-0 scalar
                # (for ArgMax and ArgMin too).
                self.assertEqual(got.shape, want.shape)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    def test_log_sum_exp_of_run_time_axes_without_keepdims(self):
        # Axes 1 and 2 of [3, 2, 2] both leave [3, 2]: the conversion runs
        # at the kept shape [3, 1, 2], and the engine refuses axes that do
        # not give it rather than answer for other axes.
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
        from mace_converter.api import ConvertOptions, TensorSpec
        from mace_converter.convert import convert
        graph = helper.make_graph(
            [helper.make_node("ReduceLogSumExp", ["x", "axes"], ["y"], keepdims=0)], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2, 2]),
             helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])])
        onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        onnx_model.ir_version = 8
        path = Path(tempfile.mkdtemp()) / "lse.onnx"
        path.write_bytes(onnx_model.SerializeToString())
        converted = convert(ConvertOptions(
            platform="onnx", model_file=path, weight_file=None,
            inputs=[TensorSpec("x", [3, 2, 2], data_format="NONE"),
                    TensorSpec("axes", [1], data_format="NONE")],
            outputs=[TensorSpec("y", [], data_format="NONE")]))
        x = feeds([3, 2, 2], 400)["x"]
        got = run_converted(self, converted, {"x": x, "axes": np.array([1], np.int64)})["y"]
        want = ort_run(onnx_model, {"x": x, "axes": np.array([1], np.int64)})[0]
        self.assertEqual(got.shape, (3, 2))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        with self.assertRaisesRegex(AssertionError, "Reduce"):
            run_converted(self, converted, {"x": x, "axes": np.array([2], np.int64)})


if __name__ == "__main__":
    unittest.main()
