"""Range estimation for activations with outliers: the KL-divergence search
on synthetic distributions whose answer is known, the histogram files, and
min/max, percentile and KL calibration through mace_run on a tensor with
one outlier.

The mace_run tests need the host mace_run (MACE_RUN, default
bazel-bin/mace/tools/mace_run)."""
from __future__ import annotations

import os
import tempfile
import unittest
from unittest import mock
from pathlib import Path

import numpy as np
from onnx import helper

from mace_converter.api import ConversionError
from mace_converter.progress import REPO
from mace_converter.quantize import calibration, kl
from tests.converter_front.helpers import convert_model, make_model, rng

MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))


def histogram(values: np.ndarray, low: float, high: float,
              bins: int = kl.COUNTED_BINS) -> np.ndarray:
    """What mace_run --quantize_stat_histogram counts: equal bins over
    [low, high], values outside in the end bins."""
    width = high - low
    index = np.floor((values.astype(np.float64) - low) * (bins / width)) if width > 0 else \
        np.zeros(values.size)
    return np.bincount(np.clip(index, 0, bins - 1).astype(np.int64), minlength=bins)


def kl_of(values: np.ndarray) -> tuple[float, float]:
    low, high = float(values.min()), float(values.max())
    bounds = kl.histogram_bounds(low, high)
    return kl.kl_range(low, high, *bounds, histogram(values, *bounds), "t")


def gaussian_with_outlier(size: int = 200_000, outlier: float = 50.0) -> np.ndarray:
    values = rng(1).normal(0.0, 1.0, size)
    values[size // 2] = outlier
    return values


class KlSearchTest(unittest.TestCase):
    def test_two_sided_gaussian_with_one_outlier_is_clipped(self):
        values = gaussian_with_outlier()
        low, high = kl_of(values)
        self.assertEqual(values.max(), 50.0)          # what min/max would keep
        self.assertTrue(2.5 < high < 8.0, high)
        self.assertEqual(low, max(values.min(), -high))
        self.assertLess(np.percentile(values, 99.99), 5.0)   # percentile clips it too

    def test_one_sided_relu_output_with_one_outlier_is_clipped(self):
        values = np.maximum(gaussian_with_outlier(), 0.0)
        low, high = kl_of(values)
        self.assertEqual(low, 0.0)
        self.assertTrue(2.5 < high < 8.0, high)

    def test_exact_zeros_do_not_move_the_threshold(self):
        """ReLU6-like: mostly small values, a few saturated at 6; adding as
        many exact zeros (which uint8 holds exactly) keeps the range."""
        g = rng(4)
        body = np.concatenate([g.exponential(0.4, 50_000).clip(0, 6), np.full(50, 6.0)])
        with_zeros = np.concatenate([np.zeros(50_000), body])
        self.assertGreater(kl_of(body)[1], 5.0)
        self.assertAlmostEqual(kl_of(with_zeros)[1], kl_of(body)[1], delta=0.1)

    def test_negative_tensor_is_mirrored(self):
        low, high = kl_of(-np.maximum(gaussian_with_outlier(), 0.0))
        self.assertEqual(high, 0.0)
        self.assertTrue(-8.0 < low < -2.5, low)

    def test_uniform_values_keep_their_range(self):
        values = rng(2).uniform(-1.0, 1.0, 100_000)
        low, high = kl_of(values)
        self.assertGreater(high, 0.97 * values.max())
        self.assertLess(low, 0.97 * values.min())

    def test_sparse_histogram_keeps_everything_at_full_resolution(self):
        # 256 distinct values, each its own bin: 256 levels lose nothing.
        values = np.repeat(np.arange(256, dtype=np.float64), 10)
        self.assertEqual(kl_of(values), (0.0, 255.0))

    def test_constant_zero_tensor(self):
        self.assertEqual(kl_of(np.zeros(100)), (0.0, 0.0))

    def test_threshold_against_a_direct_search(self):
        """threshold_bins against a plain loop over the definition."""
        hist = rng(3).integers(0, 50, 300).astype(np.float64)
        hist[250:299] = 0
        hist[299] = 3
        levels = 16

        def divergence(kept):
            p = hist[:kept].copy()
            p[-1] += hist[kept:].sum()
            q = np.zeros(kept)
            for g in range(levels):
                a, b = g * kept // levels, (g + 1) * kept // levels
                nonzero = [j for j in range(a, b) if hist[j] > 0]
                for j in nonzero:
                    q[j] = hist[a:b].sum() / len(nonzero)
            p, q = p / p.sum(), q / p.sum()
            return sum(pj * np.log(pj / max(qj, kl.SMOOTHING)) for pj, qj in zip(p, q) if pj > 0)

        expected = min(range(levels, 301), key=divergence)
        self.assertEqual(kl.threshold_bins(hist, levels), expected)


class HistogramFileTest(unittest.TestCase):
    def test_parse_and_merge(self):
        text = "a@@-1,1@@1,2,3,4\nodd@@name@@0,2@@0,0,5,1\n"
        runs = [kl.parse_histograms(text, "h.txt")] * 2
        merged = kl.merge_histograms(runs)
        self.assertEqual(merged["a"][2].tolist(), [2, 4, 6, 8])
        self.assertEqual(merged["odd@@name"][:2], (0.0, 2.0))

    def test_bad_files(self):
        for text in ("a@@-1,1\n", "a@@-1,1@@1,x\n", "a@@-1@@1,2\n", "a@@0,1@@1,-2\n"):
            with self.subTest(text=text):
                with self.assertRaisesRegex(ConversionError, "h.txt, line 1: expected"):
                    kl.parse_histograms(text, "h.txt")
        with self.assertRaisesRegex(ConversionError, "tensor 'a': histograms with different"):
            kl.merge_histograms([kl.parse_histograms("a@@0,1@@1,2\n", "h"),
                                 kl.parse_histograms("a@@0,2@@1,2\n", "h")])
        with self.assertRaisesRegex(ConversionError, "tensor 'b' has a range but no histogram"):
            kl.kl_ranges({"b": (0.0, 1.0)}, {})
        with self.assertRaisesRegex(ConversionError, "tensor 't': histogram bounds"):
            kl.kl_range(-1.0, 2.0, -1.0, 2.0, np.ones(4, np.int64), "t")


SHAPE = [1, 4, 64, 64]


@unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build //mace/tools:mace_run")
class CalibrationMethodsTest(unittest.TestCase):
    """x (Gaussian with one outlier) -> Relu -> r -> Sigmoid -> y."""

    def ranges(self, method: str, count: int = 2):
        model = make_model([helper.make_node("Relu", ["x"], ["r"]),
                            helper.make_node("Sigmoid", ["r"], ["y"])], {"x": SHAPE}, {"y": None})
        converted = convert_model(model, {"x": SHAPE}, ["y"])
        xs = []
        for index in range(count):
            x = rng(10 + index).normal(0.0, 1.0, SHAPE).astype(np.float32)
            x.reshape(-1)[100 + index] = 50.0
            xs.append(x)
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            (d / "f.pb").write_bytes(converted.net_def.SerializeToString())
            (d / "f.data").write_bytes(converted.weights)
            with mock.patch.dict(os.environ, {"MACE_RUN": str(MACE_RUN)}):
                return calibration.collect_ranges(d / "f.pb", d / "f.data", converted.inputs,
                                                  [{"x": x} for x in xs], method, 99.99)

    def test_minmax_keeps_the_outlier_percentile_and_kl_clip_it(self):
        minmax, percentile, divergence = (self.ranges(m) for m in ("minmax", "percentile", "kl"))
        self.assertEqual(minmax["x"][1], 50.0)
        self.assertEqual(minmax["r"], (0.0, 50.0))
        for name, ranges in (("percentile", percentile), ("kl", divergence)):
            with self.subTest(method=name):
                self.assertTrue(2.5 < ranges["x"][1] < 8.0, ranges["x"])
                self.assertTrue(-8.0 < ranges["x"][0] < -2.5, ranges["x"])
                self.assertEqual(ranges["r"][0], 0.0)
                self.assertTrue(2.5 < ranges["r"][1] < 8.0, ranges["r"])
        # The sigmoid output lies in [0.5, 1]; KL trims at most its thin tail.
        self.assertTrue(0.95 < divergence["y"][1] <= minmax["y"][1], divergence["y"])
        self.assertEqual(divergence["y"][0], minmax["y"][0])


if __name__ == "__main__":
    unittest.main()
