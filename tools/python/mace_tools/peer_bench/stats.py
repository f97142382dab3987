"""Numbers: latency summaries, output agreement, the fastest peer and ratios.
No engine is imported here."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence, TypeVar

import numpy as np

T = TypeVar("T")


@dataclass(frozen=True)
class Summary:
    count: int
    min: float
    median: float
    max: float
    mean: float


def median(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def summarize(values: Sequence[float]) -> Summary:
    if not values:
        raise ValueError("summary of no values")
    return Summary(count=len(values), min=float(min(values)), median=median(values),
                   max=float(max(values)), mean=float(sum(values)) / len(values))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two tensors of the same size, in float64."""
    x = np.asarray(a, dtype=np.float64).reshape(-1)
    y = np.asarray(b, dtype=np.float64).reshape(-1)
    if x.size != y.size:
        raise ValueError(f"tensors hold {x.size} and {y.size} values")
    norms = float(np.linalg.norm(x) * np.linalg.norm(y))
    if norms == 0.0:
        return 1.0 if np.array_equal(x, y) else 0.0
    if not math.isfinite(norms):
        return 0.0
    return float(np.dot(x, y) / norms)


def fastest(latencies: Mapping[str, Optional[float]]) -> Optional[tuple[str, float]]:
    """The key with the lowest latency, ignoring missing ones; ties go to the
    first key."""
    best: Optional[tuple[str, float]] = None
    for key, value in latencies.items():
        if value is not None and (best is None or value < best[1]):
            best = (key, value)
    return best


def ratio(numerator: Optional[float], denominator: Optional[float]) -> Optional[float]:
    """numerator / denominator, or None when either is missing or the
    denominator is not positive. MACE / fastest peer > 1 means MACE is slower."""
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


def geometric_mean(values: Iterable[Optional[float]]) -> Optional[float]:
    present = [v for v in values if v is not None and v > 0]
    if not present:
        return None
    return math.exp(sum(math.log(v) for v in present) / len(present))


def rotated(items: Sequence[T], shift: int) -> list[T]:
    """items started at position `shift` (mod len): each cell of the run puts
    a different engine first, so slow phases of a noisy machine do not always
    land on the same engine."""
    if not items:
        return []
    shift %= len(items)
    return list(items[shift:]) + list(items[:shift])
