"""Writes the converter's copy of the Hexagon DSP's op list.

mace/dsp/ops.inc is the one list of the DSP's op types: the C++ enum, the
DSP's dispatch and the host's translation include it. The converter, which
ships without the C++ tree, reads the same list from
mace_converter/dsp_op_list.py, made by this module:

    PYTHONPATH=tools/python .venv/bin/python -m mace_tools.dsp_op_list

tools/python/tests/test_dsp_op_list.py fails when the two differ.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
OPS_INC = REPO / "mace" / "dsp" / "ops.inc"
GENERATED = REPO / "tools" / "python" / "mace_converter" / "dsp_op_list.py"

_OP = re.compile(r'^MACE_DSP_OP\((\w+), (\d+), (\w+), "(\w+)"\)$')
_KERNEL_ONLY = re.compile(r"^MACE_DSP_KERNEL_ONLY\((\w+), (\d+), (\w+)\)$")
_RENAME = re.compile(r'^MACE_DSP_RENAME\("(\w+)"\)$')


@dataclass
class DspOpList:
    # MACE op type -> wire number, in list order.
    kernels: dict[str, int] = field(default_factory=dict)
    # DSP op name -> wire number of the op types no MACE op type maps to.
    kernel_only: dict[str, int] = field(default_factory=dict)
    renames: list[str] = field(default_factory=list)

    def numbers(self) -> list[int]:
        return list(self.kernels.values()) + list(self.kernel_only.values())


def parse(text: str) -> DspOpList:
    """The entries of ops.inc; any other line that uses a list macro is an error."""
    ops = DspOpList()
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line.startswith("MACE_DSP_"):
            continue
        if match := _OP.match(line):
            ops.kernels[match.group(4)] = int(match.group(2))
        elif match := _KERNEL_ONLY.match(line):
            ops.kernel_only[match.group(1)] = int(match.group(2))
        elif match := _RENAME.match(line):
            ops.renames.append(match.group(1))
        else:
            raise ValueError(f"ops.inc:{number}: not a list entry: {line}")
    numbers = ops.numbers()
    if len(set(numbers)) != len(numbers):
        raise ValueError("ops.inc: a wire number is used twice")
    return ops


def render(ops: DspOpList) -> str:
    """The text of mace_converter/dsp_op_list.py for `ops`."""
    kernels = "".join(f'    "{name}": {number},\n' for name, number in ops.kernels.items())
    only = "".join(f'    "{name}": {number},\n' for name, number in ops.kernel_only.items())
    renames = "".join(f'    "{name}",\n' for name in ops.renames)
    return (
        '"""The Hexagon DSP\'s op types, as mace/dsp/ops.inc lists them.\n\n'
        "Written by `python -m mace_tools.dsp_op_list` from that file; do not edit.\n"
        '"""\n\n'
        "# MACE op type -> DSP op type number (the graph format's wire number).\n"
        f"DSP_KERNELS = {{\n{kernels}}}\n"
        "# DSP op types no MACE op type is translated to.\n"
        f"DSP_KERNEL_ONLY = {{\n{only}}}\n"
        "# MACE op types the DSP runs as a rename of their input.\n"
        f"RENAMES = (\n{renames})\n"
    )


def main() -> int:
    GENERATED.write_text(render(parse(OPS_INC.read_text())))
    print(f"wrote {GENERATED.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
