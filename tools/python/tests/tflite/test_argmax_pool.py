"""MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D, written with the
flatbuffers builder and MediaPipe's custom options (no PyPI wheel ships a
model with them: MediaPipe's hair segmentation model is downloaded at run
time). LiteRT cannot run them without MediaPipe's registration, so:

- the whole graph (pool, ADD, unpool) is checked against a loop-by-loop
  numpy version of MediaPipe's two kernels over the NHWC tensors, written
  here, on fixed seeds: odd sizes, SAME and VALID, stride below, equal to
  and above the filter, ties, a fused RELU6; through the numpy runner and,
  with `mace_run` built, through the engine;
- the pooled values are checked against LiteRT's builtin MAX_POOL_2D with
  the same window, which MediaPipe's kernel extends;
- options the converter does not take are refused with the op named.
"""
from __future__ import annotations

import os
import struct
import tempfile
import unittest
from pathlib import Path

import numpy as np
import tflite

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from mace_converter.progress import REPO
from tests.converter_front.helpers import mace_run_outputs
from tests.tflite.builder import Op, Spec, T, build
from tests.tflite.litert import convert_tflite, litert_run

MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))
SAME, VALID = 1, 2


def options(padding: int, stride: tuple, window: tuple, activation: int = 0) -> bytes:
    """TfLitePoolParams as MediaPipe's models store it: padding, stride W,
    stride H, filter W, filter H, activation, then four ints of computed
    padding."""
    return struct.pack("<10i", padding, stride[1], stride[0], window[1], window[0],
                       activation, 0, 0, 0, 0)


def padding_before(stride: int, size: int, window: int, out: int) -> int:
    """LiteRT's ComputePadding (dilation 1), C's truncating division."""
    total = (out - 1) * stride + window - size
    return max(int(total / 2), 0)


def mediapipe_pool(x: np.ndarray, padding: int, stride, window, activation: int = 0):
    """MediaPipe's MaxPoolArgmax loop over an NHWC tensor."""
    n, h, w, c = x.shape
    out = [(s + st - 1) // st if padding == SAME else (s - k + st) // st
           for s, k, st in zip((h, w), window, stride)]
    pad = [padding_before(stride[a], (h, w)[a], window[a], out[a]) for a in range(2)]
    values = np.zeros((n, out[0], out[1], c), np.float32)
    indices = np.zeros_like(values)
    low, high = {1: (0, np.inf), 2: (-1, 1), 3: (0, 6)}.get(activation, (-np.inf, np.inf))
    for b, oy, ox, ch in np.ndindex(n, out[0], out[1], c):
        y0, x0 = oy * stride[0] - pad[0], ox * stride[1] - pad[1]
        best, best_y, best_x = np.finfo(np.float32).min, 0, 0
        for fy in range(max(0, -y0), min(window[0], h - y0)):
            for fx in range(max(0, -x0), min(window[1], w - x0)):
                if x[b, y0 + fy, x0 + fx, ch] > best:
                    best, best_y, best_x = x[b, y0 + fy, x0 + fx, ch], fy, fx
        values[b, oy, ox, ch] = min(max(best, low), high)
        indices[b, oy, ox, ch] = np.float32(best_y * window[1] + best_x) + np.float32(0.1)
    return values, indices


def mediapipe_unpool(x: np.ndarray, indices: np.ndarray, stride, window) -> np.ndarray:
    """MediaPipe's MaxUnpooling2D loop over NHWC tensors."""
    n, h, w, c = x.shape
    out_h, out_w = h * window[0], w * window[1]
    pad = [padding_before(stride[0], out_h, window[0], h),
           padding_before(stride[1], out_w, window[1], w)]
    out = np.zeros((n, out_h, out_w, c), np.float32)
    for b, y, xx, ch in np.ndindex(n, h, w, c):
        index = int(indices[b, y, xx, ch])
        oy = y * stride[0] - pad[0] + index // window[1]
        ox = xx * stride[1] - pad[1] + index % window[1]
        if 0 <= oy < out_h and 0 <= ox < out_w:
            out[b, oy, ox, ch] = x[b, y, xx, ch]
    return out


def pooled_shape(shape, padding, stride, window) -> list[int]:
    n, h, w, c = shape
    out = [(s + st - 1) // st if padding == SAME else (s - k + st) // st
           for s, k, st in zip((h, w), window, stride)]
    return [n, out[0], out[1], c]


def segmentation_model(shape, padding, stride, window, activation=0,
                       pool_bytes=None, unpool_bytes=None) -> tuple[bytes, np.ndarray]:
    """x -> MaxPoolingWithArgmax2D -> (pooled, indices); pooled + c ->
    MaxUnpooling2D with the indices -> y. Outputs y, pooled and indices."""
    pooled = pooled_shape(shape, padding, stride, window)
    unpooled = [shape[0], pooled[1] * window[0], pooled[2] * window[1], shape[3]]
    shift = np.random.default_rng(5).uniform(0.5, 1.5, pooled).astype(np.float32)
    pool_bytes = options(padding, stride, window, activation) if pool_bytes is None \
        else pool_bytes
    unpool_bytes = options(padding, stride, window) if unpool_bytes is None else unpool_bytes
    model = build(Spec(
        [T("x", shape), T("pooled", pooled), T("indices", pooled), T("c", pooled, 1),
         T("shifted", pooled), T("y", unpooled)],
        [Op("MaxPoolingWithArgmax2D", [0], [1, 2], custom_options=pool_bytes),
         Op(tflite.BuiltinOperator.ADD, [1, 3], [4]),
         Op("MaxUnpooling2D", [4, 2], [5], custom_options=unpool_bytes)],
        [0], [5, 1, 2], [shift.astype("<f4").tobytes()]))
    return model, shift


def builtin_max_pool(shape, padding, stride, window) -> bytes:
    def pool_options(b) -> int:
        tflite.Pool2DOptionsStart(b)
        tflite.Pool2DOptionsAddPadding(b, tflite.Padding.SAME if padding == SAME
                                       else tflite.Padding.VALID)
        tflite.Pool2DOptionsAddStrideH(b, stride[0])
        tflite.Pool2DOptionsAddStrideW(b, stride[1])
        tflite.Pool2DOptionsAddFilterHeight(b, window[0])
        tflite.Pool2DOptionsAddFilterWidth(b, window[1])
        return tflite.Pool2DOptionsEnd(b)
    return build(Spec([T("x", shape), T("pooled", pooled_shape(shape, padding, stride, window))],
                      [Op(tflite.BuiltinOperator.MAX_POOL_2D, [0], [1],
                          (tflite.BuiltinOptions.Pool2DOptions, pool_options))], [0], [1]))


# shape (NHWC), padding, stride, filter, activation
CASES = [
    ([1, 8, 8, 3], SAME, (2, 2), (2, 2), 0),      # the segmentation models' window
    ([2, 7, 5, 2], SAME, (2, 2), (2, 2), 0),      # odd sizes
    ([1, 9, 7, 2], VALID, (2, 2), (3, 3), 0),     # VALID drops trailing pixels
    ([1, 6, 9, 1], SAME, (2, 2), (3, 3), 0),      # stride below the filter
    ([1, 7, 8, 2], SAME, (3, 3), (2, 2), 0),      # stride above the filter
    ([1, 5, 6, 4], SAME, (1, 2), (3, 2), 3),      # RELU6, stride 1 rows
]


def inputs_for(shape, seed: int, ties: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if ties:   # a few levels: many windows hold their maximum twice
        return (rng.integers(-3, 4, shape) * 2.5).astype(np.float32)
    return rng.uniform(-8, 8, shape).astype(np.float32)


class ArgmaxPoolTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def write(self, name: str, model: bytes) -> Path:
        path = self.dir / f"{name}.tflite"
        path.write_bytes(model)
        return path

    def expected(self, x, shift, padding, stride, window, activation):
        pooled, indices = mediapipe_pool(x, padding, stride, window, activation)
        y = mediapipe_unpool(pooled + shift, indices, stride, window)
        return {"y": y, "pooled": pooled, "indices": indices}

    def check(self, got: dict, expected: dict, where: str) -> None:
        for name, value in expected.items():
            self.assertEqual(got[name].shape, value.shape, f"{where}/{name}")
            if name == "indices":
                np.testing.assert_array_equal(got[name], value, f"{where}/{name}")
            else:
                np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-6,
                                           err_msg=f"{where}/{name}")

    def test_graph_against_mediapipe_kernels(self):
        seed = 100
        for shape, padding, stride, window, activation in CASES:
            model, shift = segmentation_model(shape, padding, stride, window, activation)
            path = self.write("graph", model)
            converted = convert_tflite(path, {"x": shape}, ["y", "pooled", "indices"])
            for ties in (False, True):
                seed += 1
                where = f"{shape} padding {padding} stride {stride} filter {window} seed {seed}"
                with self.subTest(where):
                    x = inputs_for(shape, seed, ties)
                    got = run(converted.net_def, converted.weights, {"x": x})
                    self.check(got, self.expected(x, shift, padding, stride, window,
                                                  activation), where)

    @unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build "
                                            "//mace/tools:mace_run")
    def test_engine_against_mediapipe_kernels(self):
        for number, (shape, padding, stride, window, activation) in enumerate(CASES[1:4]):
            where = f"{shape} padding {padding} stride {stride} filter {window} seed {number}"
            with self.subTest(where):
                model, shift = segmentation_model(shape, padding, stride, window, activation)
                path = self.write(f"engine{number}", model)
                outputs = ["y", "pooled", "indices"]
                converted = convert_tflite(path, {"x": shape}, outputs)
                x = inputs_for(shape, 200 + number, ties=number == 1)
                got = mace_run_outputs(MACE_RUN, converted, {"x": x}, outputs)
                self.check(got, self.expected(x, shift, padding, stride, window, activation),
                           where)

    def test_pooled_values_match_litert_max_pool(self):
        for shape, padding, stride, window, _ in CASES:
            with self.subTest(f"{shape} padding {padding} stride {stride} filter {window}"):
                x = inputs_for(shape, 7, ties=False)
                reference = self.write("builtin", builtin_max_pool(shape, padding, stride,
                                                                   window))
                model, _ = segmentation_model(shape, padding, stride, window)
                converted = convert_tflite(self.write("custom", model), {"x": shape},
                                           ["pooled"])
                got = run(converted.net_def, converted.weights, {"x": x})["pooled"]
                np.testing.assert_array_equal(got, litert_run(reference, {"x": x})["pooled"])

    def refused(self, pattern: str, shape=(1, 4, 4, 1), **model_args) -> None:
        args = dict(padding=SAME, stride=(2, 2), window=(2, 2))
        args.update(model_args)
        model, _ = segmentation_model(list(shape), **args)
        with self.assertRaisesRegex(ConversionError, pattern):
            convert_tflite(self.write("refused", model), {"x": list(shape)}, ["y"])

    def test_refusals(self):
        pool = "TFLite MaxPoolingWithArgmax2D operator 0 .*"
        unpool = "TFLite MaxUnpooling2D operator 2 .*"
        self.refused(pool + "custom options of 12 bytes; at least 24",
                     pool_bytes=struct.pack("<3i", 1, 2, 2))
        self.refused(pool + "padding 0 is not supported",
                     pool_bytes=options(0, (2, 2), (2, 2)))
        self.refused(pool + "fused activation TANH is not supported",
                     pool_bytes=options(SAME, (2, 2), (2, 2), 4))
        self.refused(pool + "fused activation 9 is unknown",
                     pool_bytes=options(SAME, (2, 2), (2, 2), 9))
        self.refused(pool + r"strides \[0, 2\] and filter \[2, 2\] must be between",
                     pool_bytes=options(SAME, (0, 2), (2, 2)))
        self.refused(unpool + "custom options of 0 bytes", unpool_bytes=b"")
        self.refused(pool + "VALID padding with a filter of 5 over 4 pixels",
                     padding=VALID, window=(5, 2), shape=(1, 4, 8, 1))


if __name__ == "__main__":
    unittest.main()
