"""ONNX GridSample (opsets 16 and 20) against onnxruntime: every mode,
padding mode and align_corners, grids reaching well outside [-1, 1], on
the numpy runner and through the engine (mace_run); volumetric sampling
(rank 5) in linear and nearest mode."""
from __future__ import annotations

import unittest

import numpy as np
from onnx import TensorProto, helper

from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, ort_run, rng
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN

X_SHAPE, GRID_SHAPE = [2, 3, 5, 7], [2, 4, 6, 2]
# Volumetric sampling (opset 20): X [N, C, D, H, W], grid of (x, y, z).
X_VOLUME, GRID_VOLUME = [2, 2, 3, 4, 5], [2, 3, 2, 4, 3]


def model(opset: int, x_shape=X_SHAPE, grid_shape=GRID_SHAPE, **attrs):
    graph = helper.make_graph(
        [helper.make_node("GridSample", ["x", "grid"], ["y"], **attrs)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape),
         helper.make_tensor_value_info("grid", TensorProto.FLOAT, grid_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    result = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    result.ir_version = 9
    return result


def cases():
    for opset, modes in ((16, ("bilinear", "nearest", "bicubic")),
                         (20, ("linear", "nearest", "cubic"))):
        for mode in modes:
            for padding in ("zeros", "border", "reflection"):
                for align in (0, 1):
                    yield opset, dict(mode=mode, padding_mode=padding, align_corners=align)


def feeds(seed: int, x_shape=X_SHAPE, grid_shape=GRID_SHAPE) -> dict[str, np.ndarray]:
    g = rng(seed)
    return {"x": g.standard_normal(x_shape).astype(np.float32),
            "grid": g.uniform(-2.5, 2.5, grid_shape).astype(np.float32)}


class GridSampleTest(unittest.TestCase):
    def test_numpy_runner(self):
        for index, (opset, attrs) in enumerate(cases()):
            with self.subTest(opset=opset, **attrs):
                onnx_model, x = model(opset, **attrs), feeds(index)
                want = ort_run(onnx_model, x)[0]
                converted = convert_model(onnx_model, {k: v.shape for k, v in x.items()}, ["y"])
                got = run(converted.net_def, converted.weights, x)["y"]
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    def test_engine(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
        for index, (opset, attrs) in enumerate(cases()):
            if opset != 16:
                continue
            with self.subTest(**attrs):
                onnx_model, x = model(opset, **attrs), feeds(100 + index)
                want = ort_run(onnx_model, x)[0]
                converted = convert_model(onnx_model, {k: v.shape for k, v in x.items()}, ["y"])
                got = run_converted(self, converted, x)["y"].reshape(want.shape)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    def test_volumetric(self):
        """Linear and nearest over [N, C, D, H, W], every padding mode and
        align_corners, on the numpy runner and through mace_run."""
        for index, (mode, padding, align) in enumerate(
                (m, p, a) for m in ("linear", "nearest") for p in ("zeros", "border", "reflection")
                for a in (0, 1)):
            with self.subTest(mode=mode, padding=padding, align=align):
                onnx_model = model(20, X_VOLUME, GRID_VOLUME, mode=mode, padding_mode=padding,
                                   align_corners=align)
                x = feeds(200 + index, X_VOLUME, GRID_VOLUME)
                want = ort_run(onnx_model, x)[0]
                converted = convert_model(onnx_model, {k: v.shape for k, v in x.items()}, ["y"])
                runs = [run(converted.net_def, converted.weights, x)["y"]]
                if index % 3 == 0:
                    runs.append(run_converted(self, converted, x)["y"])
                for got in runs:
                    self.assertEqual(got.shape, want.shape)
                    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


if __name__ == "__main__":
    unittest.main()
