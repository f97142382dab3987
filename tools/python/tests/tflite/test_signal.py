"""RFFT2D and its complex readers (COMPLEX_ABS, REAL, IMAG, CAST, reshapes)
in models written by TFLiteConverter from tf.signal.rfft, rfft2d and stft
(inputs from seed 0; one with an open signature whose shape arithmetic
folds at conversion), and one written by hand that crops and pads both
axes, against LiteRT through the numpy runner, and a log-mel front end
through mace_run too. LiteRT's RFFT2D takes power-of-two lengths only, so
the length 400 is checked against numpy's float64 rfft. Complex tensors
read by any other op, or asked for as outputs, are refused."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import tflite

from mace_converter.api import ConversionError
from mace_converter.frontends import tflite_model
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import cosine
from tests.tflite.builder import Op, Spec, T, build
from tests.tflite.litert import (TfliteModelCase, convert_tflite, io_names, litert_run,
                                 write_tflite)
from tests.tflite.test_mace_run import MACE_RUN, mace_run

MIN_COSINE = 0.999
MAX_RELATIVE_ERROR = 1e-4      # of the output's largest |value|
COMPLEX64 = 8


def compare(test: unittest.TestCase, got: np.ndarray, want: np.ndarray, what: str) -> None:
    test.assertEqual(list(got.shape), list(want.shape), what)
    error = float(np.abs(got.astype(np.float64) - want).max()) / \
        max(float(np.abs(want).max()), 1e-6)
    similarity = cosine(got, want)
    print(f"{what}: cosine {similarity:.9f}, max error {error:.2e} of the scale")
    test.assertGreaterEqual(similarity, MIN_COSINE, what)
    test.assertLessEqual(error, MAX_RELATIVE_ERROR, what)


def spectrum_parts(tf, size: Optional[int] = None) -> Callable:
    def fn(x):
        spectrum = tf.signal.rfft(x, None if size is None else [size])
        magnitude = tf.abs(spectrum)
        return magnitude, tf.math.real(spectrum), tf.math.imag(spectrum), tf.square(magnitude)
    return fn


def log_mel(tf, frame: int, step: int, fft: int, mels: int) -> Callable:
    """A 16 kHz log-mel front end: Hann-windowed STFT, power, mel matrix, log."""
    matrix = tf.signal.linear_to_mel_weight_matrix(mels, fft // 2 + 1, 16000, 60.0, 7600.0)

    def fn(x):
        power = tf.square(tf.abs(tf.signal.stft(x, frame, step, fft)))
        return tf.math.log(tf.tensordot(power, matrix, 1) + 1e-6)
    return fn


def rfft2d_model(shape: list[int], lengths: list[int], outputs: list[str]) -> bytes:
    """RFFT2D of x (float32) with constant fft_length, then `outputs`:
    "abs", "real", "imag" (its readers), "add" (COMPLEX_ABS of a complex
    ADD) or "spectrum" (the complex tensor itself)."""
    out = shape[:-2] + [lengths[0], lengths[1] // 2 + 1]
    tensors = [T("x", shape), T("fft_length", [2], 1, dtype=2), T("spectrum", out,
                                                                  dtype=COMPLEX64)]
    ops = [Op(tflite.BuiltinOperator.RFFT2D, [0, 1], [2])]
    codes = {"abs": tflite.BuiltinOperator.COMPLEX_ABS, "real": tflite.BuiltinOperator.REAL,
             "imag": tflite.BuiltinOperator.IMAG}
    wanted = []
    for name in outputs:
        if name == "spectrum":
            wanted.append(2)
            continue
        if name == "add":
            tensors.append(T("sum", out, dtype=COMPLEX64))
            ops.append(Op(tflite.BuiltinOperator.ADD, [2, 2], [len(tensors) - 1]))
            tensors.append(T(name, out))
            ops.append(Op(codes["abs"], [len(tensors) - 2], [len(tensors) - 1]))
        else:
            tensors.append(T(name, out))
            ops.append(Op(codes[name], [2], [len(tensors) - 1]))
        wanted.append(len(tensors) - 1)
    return build(Spec(tensors, ops, [0], wanted,
                      [np.asarray(lengths, "<i4").tobytes()]))


class TfliteSignalTest(TfliteModelCase):
    def model(self, name: str, fn: Callable, shape: list[int], dynamic: bool = False
              ) -> tuple:
        path = write_tflite(self.dir / f"{name}.tflite", fn, [shape], dynamic=dynamic)
        names, outputs = io_names(path)
        ops = {op.op_type for op in tflite_model.read(path).operators}
        feeds = {n: np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
                 for n in names}
        return path, {n: shape for n in names}, outputs, feeds, ops

    def check_litert(self, name: str, fn: Callable, shape: list[int], ops: set[str],
                     dynamic: bool = False) -> None:
        path, inputs, outputs, feeds, written = self.model(name, fn, shape, dynamic)
        self.assertLessEqual(ops, written, name)
        expected = litert_run(path, feeds)
        converted = convert_tflite(path, inputs, outputs)
        got = run(converted.net_def, converted.weights, feeds)
        for out in outputs:
            compare(self, got[out], expected[out], f"{name}/{out}")

    def test_rfft_lengths_against_litert(self):
        readers = {"RFFT2D", "COMPLEX_ABS", "REAL", "IMAG", "RESHAPE"}
        for size in (8, 64, 256):
            with self.subTest(size=size):
                self.check_litert(f"rfft{size}", spectrum_parts(self.tf), [3, size], readers)
        with self.subTest("padded"):
            self.check_litert("rfft_padded", spectrum_parts(self.tf, 16), [3, 10], readers)

    def test_rfft_length_400_against_numpy(self):
        path, inputs, outputs, feeds, ops = self.model("rfft400", spectrum_parts(self.tf),
                                                       [3, 400])
        self.assertIn("RFFT2D", ops)
        x = next(iter(feeds.values())).astype(np.float64)
        spectrum = np.fft.rfft(x)
        want = [np.abs(spectrum), spectrum.real, spectrum.imag, np.abs(spectrum) ** 2]
        converted = convert_tflite(path, inputs, outputs)
        got = run(converted.net_def, converted.weights, feeds)
        for out, expected in zip(outputs, want):
            compare(self, got[out], expected, f"rfft400/{out}")

    def test_rfft2d_against_litert(self):
        def fn(x):
            spectrum = self.tf.signal.rfft2d(x)
            return self.tf.abs(spectrum), self.tf.math.real(spectrum), \
                self.tf.math.imag(spectrum)
        self.check_litert("rfft2d", fn, [2, 8, 16], {"RFFT2D", "COMPLEX_ABS", "REAL",
                                                       "IMAG"})

    def test_rfft2d_crops_and_pads_as_litert(self):
        # Rows cropped from 6 to 4, columns padded from 5 to 8; and the
        # reverse, with a batch of 2.
        for shape, lengths in (([2, 6, 5], [4, 8]), ([2, 3, 20], [8, 16]), ([3, 7], [1, 4])):
            with self.subTest(shape=shape, lengths=lengths):
                path = self.dir / "rfft2d_hand.tflite"
                path.write_bytes(rfft2d_model(shape, lengths, ["abs", "real", "imag"]))
                x = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
                expected = litert_run(path, {"x": x})
                converted = convert_tflite(path, {"x": shape}, ["abs", "real", "imag"])
                got = run(converted.net_def, converted.weights, {"x": x})
                for out in ("abs", "real", "imag"):
                    compare(self, got[out], expected[out], f"rfft2d{shape}{lengths}/{out}")

    def test_stft_log_mel_against_litert(self):
        ops = {"RFFT2D", "COMPLEX_ABS", "SQUARE", "GATHER", "MUL", "LOG"}
        with self.subTest("frames of 400, fft 512"):
            self.check_litert("log_mel_400", log_mel(self.tf, 400, 160, 512, 40), [1, 4000],
                              ops)
        with self.subTest("frames of 64, fft 64"):
            self.check_litert("log_mel_64", log_mel(self.tf, 64, 32, 64, 16), [2, 1024], ops)

    def test_stft_of_open_dimensions(self):
        """Exported with an open signature, stft computes its frame count
        with shape arithmetic (SHAPE, SPLIT_V, PACK, RANGE) that folds at
        conversion; the spectrum is squeezed and cast (its real part)."""
        def fn(x):
            spectrum = self.tf.signal.stft(x, 256, 128, 256)
            return self.tf.cast(spectrum, self.tf.float32) ** 2, self.tf.abs(spectrum)
        self.check_litert("stft_open", fn, [1, 2048], {"RFFT2D", "SHAPE", "SPLIT_V", "PACK",
                                                       "RANGE", "SQUEEZE", "EXPAND_DIMS",
                                                       "CAST", "COMPLEX_ABS"}, dynamic=True)

    @unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build "
                                            "//mace/tools:mace_run")
    def test_stft_log_mel_through_mace_run(self):
        path, inputs, outputs, feeds, ops = self.model(
            "log_mel_engine", log_mel(self.tf, 400, 160, 512, 40), [1, 4000])
        self.assertIn("RFFT2D", ops)
        expected = litert_run(path, feeds)
        got = mace_run(convert_tflite(path, inputs, outputs), feeds, outputs)
        for out in outputs:
            compare(self, got[out], expected[out], f"log_mel mace_run/{out}")


class ComplexRefusalTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.path = Path(tmp.name) / "complex.tflite"

    def refused(self, outputs: list[str], pattern: str) -> None:
        self.path.write_bytes(rfft2d_model([2, 8], [1, 8], outputs))
        with self.assertRaisesRegex(ConversionError, pattern):
            convert_tflite(self.path, {"x": [2, 8]}, outputs)

    def test_complex_tensor_read_by_another_op(self):
        self.refused(["abs", "add"], r"TFLite ADD operator 2 \(output 'sum'\) in complex.tflite:"
                                     r" reads the complex64 tensor 'spectrum'; MACE tensors "
                                     r"hold no complex numbers")

    def test_complex_graph_output(self):
        self.refused(["spectrum"], r"TFLite RFFT2D operator 0 \(output 'spectrum'\) in "
                                   r"complex.tflite: the output is complex64")


if __name__ == "__main__":
    unittest.main()
