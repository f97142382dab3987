"""KL-divergence ranges for activations with outliers.

Calibration first measures each tensor's min/max, then counts its values
into a histogram over bounds that have 0 on a bin edge
(`histogram_bounds`): [0, max] for a tensor that is never negative, [min, 0]
for one that is never positive, else [-m, m] with m = max(|min|, max),
folded into a histogram of |x|. The search (`threshold_bins`) tries every
threshold from `levels` bins up to the whole histogram. For each, the
reference distribution is the histogram clipped at the threshold (the
values beyond it added to the last kept bin), and the candidate is what
remains representable: the kept bins merged into `levels` equal groups,
each group's count spread evenly over its non-empty bins. Both are divided
by the reference's total, so the candidate falls short by the clipped share.
The threshold with the smallest divergence sum(p log(p / q)) between the two
is the range.

A one-sided tensor gets all 256 uint8 levels; a two-sided one is searched
on |x| with 128 levels per side and keeps its own min and max where they
lie inside the threshold.

The first bin holds the exact zeros of ReLU outputs and padding, often half
of all values. The scheme represents 0 exactly (the zero point), but the
candidate would spread that spike over the first group's bins, and the
search would then favour the thresholds whose first group is one bin (any
threshold below 2 x levels bins) whatever the rest of the distribution. So
the search counts the first bin as equal to the second.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.quantize.ranges import SEPARATOR, Ranges

# Bins of the searched histogram (of |x| for a two-sided tensor): mace_run
# counts twice as many over the bounds, since folding or pairing halves them.
BINS = 2048
COUNTED_BINS = 2 * BINS
# Where the candidate has no mass but the reference has (clipped values in
# an empty last bin), the candidate is taken as this share.
SMOOTHING = 1e-10

Histograms = dict[str, tuple[float, float, np.ndarray]]


def histogram_bounds(low: float, high: float) -> tuple[float, float]:
    if low >= 0:
        return 0.0, high
    if high <= 0:
        return low, 0.0
    extent = max(-low, high)
    return -extent, extent


def bounds_of(ranges: Ranges) -> Ranges:
    return {name: histogram_bounds(low, high) for name, (low, high) in ranges.items()}


def parse_histograms(text: str, source: str) -> Histograms:
    """Lines `name@@min,max@@c0,c1,...` (mace_run --quantize_stat_histogram)."""
    result: Histograms = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        head, separator, counts_text = line.rpartition(SEPARATOR)
        name, separator2, bounds_text = head.rpartition(SEPARATOR)
        try:
            low, high = (float(v) for v in bounds_text.split(","))
            counts = np.array([int(c) for c in counts_text.split(",")], dtype=np.int64)
        except ValueError:
            counts = None
        if not separator or not separator2 or not name or counts is None or np.any(counts < 0):
            raise ConversionError(f"{source}, line {number}: expected "
                                  f"'tensor{SEPARATOR}min,max{SEPARATOR}count,count,...'")
        result[name] = (low, high, counts)
    return result


def merge_histograms(runs: Iterable[Histograms]) -> Histograms:
    """Sums the counts of each tensor over runs made with the same bounds."""
    merged: Histograms = {}
    for run in runs:
        for name, (low, high, counts) in run.items():
            if name not in merged:
                merged[name] = (low, high, counts.copy())
                continue
            known = merged[name]
            if (known[0], known[1], known[2].size) != (low, high, counts.size):
                raise ConversionError(f"tensor '{name}': histograms with different bounds "
                                      "cannot be merged")
            known[2][:] += counts
    return merged


def threshold_bins(hist: np.ndarray, levels: int) -> int:
    """The number of leading bins of `hist` to keep (see the module doc).
    The first bin, which holds the exact zeros, counts as its neighbour."""
    hist = np.asarray(hist, dtype=np.float64).copy()
    size = hist.size
    if size > 1:
        hist[0] = hist[1]
    if size <= levels or hist.sum() == 0:
        return size
    beyond = np.append(np.cumsum(hist[::-1])[::-1], 0.0)    # beyond[i] = sum(hist[i:])
    best, best_divergence = size, math.inf
    for kept in range(levels, size + 1):
        sliced = hist[:kept]
        reference = sliced.copy()
        reference[-1] += beyond[kept]
        starts = (np.arange(levels) * kept) // levels
        occupied = sliced > 0
        group_sum = np.add.reduceat(sliced, starts)
        group_occupied = np.add.reduceat(occupied.astype(np.float64), starts)
        group = np.repeat(np.arange(levels), np.diff(np.append(starts, kept)))
        candidate = np.where(occupied, (group_sum / np.maximum(group_occupied, 1))[group], 0.0)
        divergence = _kl(reference, candidate)
        if divergence < best_divergence:
            best, best_divergence = kept, divergence
    return best


def _kl(reference: np.ndarray, candidate: np.ndarray) -> float:
    # Both over the reference's total: the candidate lacks the clipped
    # values, and that shortfall counts against the threshold. (Scaled to
    # sum to 1 on its own, a candidate whose kept mass sits in one bin would
    # match a reference that piles everything clipped onto that bin.)
    total = reference.sum()
    p, q = reference / total, candidate / total
    mask = p > 0
    q = np.maximum(q[mask], SMOOTHING)
    return float(np.sum(p[mask] * np.log(p[mask] / q)))


def kl_range(low: float, high: float, bounds_low: float, bounds_high: float,
             counts: np.ndarray, name: str) -> tuple[float, float]:
    """The clipped range of a tensor whose min/max is [low, high], from its
    histogram over [bounds_low, bounds_high] (`histogram_bounds`)."""
    if counts.size % 2:
        raise ConversionError(f"tensor '{name}': the histogram needs an even number of bins")
    if not (bounds_low == 0.0 or bounds_high == 0.0 or bounds_low == -bounds_high):
        raise ConversionError(f"tensor '{name}': histogram bounds [{bounds_low:g}, "
                              f"{bounds_high:g}] have 0 neither at an end nor in the middle")
    half = counts.size // 2
    if bounds_low == 0.0 or bounds_high == 0.0:          # one-sided: pair the bins up
        paired = counts.reshape(half, 2).sum(axis=1)
        if bounds_high == 0.0:
            paired = paired[::-1]
        kept = threshold_bins(paired, 256)
        extent = max(abs(bounds_low), abs(bounds_high)) * kept / half
        return (low, min(high, extent)) if bounds_low == 0.0 else (max(low, -extent), high)
    folded = counts[half:] + counts[:half][::-1]      # |x|: bin k holds [k, k+1) * width
    kept = threshold_bins(folded, 128)
    extent = bounds_high * kept / half
    return max(low, -extent), min(high, extent)


def kl_ranges(ranges: Ranges, histograms: Histograms) -> Ranges:
    result: Ranges = {}
    for name, (low, high) in ranges.items():
        if name not in histograms:
            raise ConversionError(f"calibration: tensor '{name}' has a range but no histogram")
        bounds_low, bounds_high, counts = histograms[name]
        result[name] = kl_range(low, high, bounds_low, bounds_high, counts, name)
    return result
