"""`benchmark`: mace_run --benchmark, then the per-op table sorted by time and
the totals per op type."""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

# One row of mace_run's op table, with a device-time column when the
# runtime measured one (GPU kernels, from profiling events; "-" elsewhere):
#    3  Conv2D   conv_3   0.1234  12.34%   123456  [1,32,112,112]
#    3  Conv2D   conv_3   0.1234  12.34%   123456     0.0871  [1,32,112,112]
_ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(.*?)\s+([\d.]+)\s+([\d.]+)%\s+(-?\d+)\s+"
                  r"(?:([\d.]+|-)\s+)?(\[.*)$")


@dataclass
class OpTime:
    index: int
    type: str
    name: str
    ms: float
    macs: int
    output_shape: str
    device_ms: float | None = None  # kernel time on the device, when measured


def parse_op_table(stdout: str) -> list[OpTime]:
    ops = []
    in_table = False
    for line in stdout.splitlines():
        if re.match(r"^\s*#\s+type\s+name", line):
            in_table = True
            continue
        if not in_table:
            continue
        match = _ROW.match(line)
        if not match:
            if ops:
                break
            continue
        index, op_type, name, ms, _, macs, device, shape = match.groups()
        device_ms = float(device) if device not in (None, "-") else None
        ops.append(OpTime(int(index), op_type, name, float(ms), int(macs), shape, device_ms))
    return ops


def format_tables(ops: list[OpTime], top: int = 0) -> str:
    """Ops sorted by median time (all, or the `top` slowest), then per-type sums."""
    total = sum(op.ms for op in ops) or 1.0
    device = any(op.device_ms is not None for op in ops)
    lines = [f"{'#':>4}  {'type':<22} {'name':<32} {'ms':>9} {'share':>7} {'cum':>7} "
             f"{'GMAC/s':>8}  " + (f"{'device ms':>9}  " if device else "") + "output shape"]
    cumulative = 0.0
    ranked = sorted(ops, key=lambda op: (-op.ms, op.index))
    for op in ranked[:top] if top else ranked:
        cumulative += op.ms
        rate = f"{op.macs / op.ms / 1e6:8.2f}" if op.ms > 0 and op.macs > 0 else f"{'-':>8}"
        device_column = ""
        if device:
            device_column = (f"{op.device_ms:9.4f}  " if op.device_ms is not None
                             else f"{'-':>9}  ")
        lines.append(f"{op.index:>4}  {op.type:<22} {op.name[:32]:<32} {op.ms:9.4f} "
                     f"{100 * op.ms / total:6.2f}% {100 * cumulative / total:6.2f}% {rate}  "
                     f"{device_column}{op.output_shape}")
    if top and len(ranked) > top:
        lines.append(f"      ... {len(ranked) - top} faster ops not shown")
    by_type: dict[str, list[OpTime]] = defaultdict(list)
    for op in ops:
        by_type[op.type].append(op)
    lines += ["", f"{'type':<22} {'count':>6} {'ms':>10} {'share':>7} {'MACs':>14} {'GMAC/s':>8}"]
    for op_type, group in sorted(by_type.items(), key=lambda item: -sum(o.ms for o in item[1])):
        ms = sum(op.ms for op in group)
        macs = sum(op.macs for op in group)
        rate = f"{macs / ms / 1e6:8.2f}" if ms > 0 and macs > 0 else f"{'-':>8}"
        lines.append(f"{op_type:<22} {len(group):>6} {ms:10.4f} {100 * ms / total:6.2f}% "
                     f"{macs:>14} {rate}")
    lines.append(f"{'all ops':<22} {len(ops):>6} {sum(op.ms for op in ops):10.4f} "
                 f"{100.0:6.2f}% {sum(op.macs for op in ops):>14}")
    return "\n".join(lines)
