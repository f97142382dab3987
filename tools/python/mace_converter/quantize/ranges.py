"""Activation range files: one tensor per line, `name@@min,max`, as
`mace_run --quantize_stat` writes them and `quantize_range_file` reads them
back. Blank lines and lines starting with '#' are ignored."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable

from mace_converter.api import ConversionError

SEPARATOR = "@@"
Ranges = dict[str, tuple[float, float]]


def parse_ranges(text: str, source: str) -> Ranges:
    ranges: Ranges = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}, line {number}"
        name, separator, values = line.rpartition(SEPARATOR)
        parts = values.split(",")
        if not separator or not name or len(parts) != 2:
            raise ConversionError(f"{where}: expected 'tensor{SEPARATOR}min,max', got '{line}'")
        try:
            low, high = float(parts[0]), float(parts[1])
        except ValueError:
            raise ConversionError(f"{where}: tensor '{name}': '{values}' is not two numbers"
                                  ) from None
        if not (math.isfinite(low) and math.isfinite(high)):
            raise ConversionError(f"{where}: tensor '{name}' has a range that is not finite "
                                  f"({values})")
        if low > high:
            raise ConversionError(f"{where}: tensor '{name}' has min {low:g} above max {high:g}")
        if name in ranges:
            raise ConversionError(f"{where}: tensor '{name}' is listed twice")
        ranges[name] = (low, high)
    if not ranges:
        raise ConversionError(f"{source}: the range file lists no tensors")
    return ranges


def read_ranges(path: Path) -> Ranges:
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        raise ConversionError(f"quantize_range_file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConversionError(f"quantize_range_file {path} cannot be read: {error}") from None
    return parse_ranges(text, str(path))


def format_ranges(ranges: Ranges) -> str:
    return "".join(f"{name}{SEPARATOR}{low:.9g},{high:.9g}\n"
                   for name, (low, high) in ranges.items())


def write_ranges(path: Path, ranges: Ranges) -> None:
    Path(path).write_text(format_ranges(ranges))


def merge_ranges(runs: Iterable[Ranges], method: str = "minmax") -> Ranges:
    """One range per tensor over several calibration runs: the widest for
    min/max; the mean of each run's percentile range for "percentile", so that
    one odd input does not set the range alone. "kl" starts from the widest
    range (quantize/kl.py narrows it)."""
    collected: dict[str, list[tuple[float, float]]] = {}
    for run in runs:
        for name, pair in run.items():
            collected.setdefault(name, []).append(pair)
    if method in ("minmax", "kl"):
        return {name: (min(p[0] for p in pairs), max(p[1] for p in pairs))
                for name, pairs in collected.items()}
    return {name: (sum(p[0] for p in pairs) / len(pairs), sum(p[1] for p in pairs) / len(pairs))
            for name, pairs in collected.items()}


def check_names(ranges: Ranges, known: Iterable[str], source: str) -> None:
    """Every named tensor must exist in the float model."""
    unknown = sorted(set(ranges) - set(known))
    if unknown:
        shown = ", ".join(f"'{name}'" for name in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise ConversionError(f"{source} names tensor(s) the model does not have: {shown}{more}")
