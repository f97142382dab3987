#!/usr/bin/env python3
"""Stripped size of a shared library and what its parts take.

    tools/library_size.py LIB.so [LIB.so ...] [--markdown]

For each library: its size as built, stripped (strip --strip-all), and the
bytes of its symbols (nm --size-sort, demangled) grouped by where they come
from: ops (mace::ops), the memory planner (mace::memory), protobuf (the
generated mace.proto classes, and protobuf itself when it is linked in), the
OpenCL runtime, a model compiled in as code, and the rest of the engine. The
remainder ("headers, tables") is what no symbol covers: ELF and dynamic
symbol tables, relocations, unwind tables, string literals. Picks the cross
binutils from the ELF machine (x86-64, aarch64, arm).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

_PREFIX = {62: "", 183: "aarch64-linux-gnu-", 40: "arm-linux-gnueabihf-"}
_ABI = {62: "x86-64", 183: "arm64-v8a", 40: "armeabi-v7a"}
_PROTO_CLASSES = ("ConstTensor", "Argument", "OutputShape", "QuantizeActivationInfo",
                  "OperatorDef", "InputOutputInfo", "NetDef", "MultiNetDef")
PARTS = ("ops", "planner", "protobuf", "OpenCL runtime", "model code", "rest of the engine")
_PROTO = re.compile(r"google::protobuf|mace_2eproto|\bmace::(" + "|".join(_PROTO_CLASSES) +
                    r")\b")


def machine(path: Path) -> int:
    header = path.read_bytes()[:20]
    if header[:4] != b"\x7fELF":
        raise SystemExit(f"{path}: not an ELF file")
    return int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")


def part(symbol: str) -> str:
    """The part a symbol belongs to, by its own qualified name (not the
    types in its signature)."""
    head = re.sub(r"^(vtable|typeinfo|typeinfo name|guard variable|construction vtable) for ",
                  "", symbol).split("(")[0]
    # A template function's name starts with its return type: keep what
    # follows the last space outside angle brackets.
    depth, start = 0, 0
    for i, c in enumerate(head):
        depth += (c == "<") - (c == ">")
        if c == " " and depth == 0:
            start = i + 1
    head = head[start:]
    if head.startswith("mace::ops::"):
        return "ops"
    if head.startswith(("mace::memory::", "mace::PlanArena")):
        return "planner"
    if _PROTO.search(head):
        return "protobuf"
    if re.search(r"OpenCL|opencl|\bcl::|\bcl[A-Z]", head):
        return "OpenCL runtime"
    if re.search(r"mace::codegen::|_model\b|CreateMaceEngineFromCode|CodeModelNames|"
                 r"LoadModelData|ModelChecksum", head):
        return "model code"
    return "rest of the engine"


def measure(path: Path) -> dict:
    prefix = _PREFIX.get(machine(path))
    if prefix is None:
        raise SystemExit(f"{path}: unknown ELF machine {machine(path)}")
    with tempfile.TemporaryDirectory() as tmp:
        stripped = Path(tmp) / "stripped.so"
        subprocess.run([f"{prefix}strip", "--strip-all", "-o", str(stripped), str(path)],
                       check=True)
        stripped_size = stripped.stat().st_size
    listing = subprocess.run([f"{prefix}nm", "-S", "--size-sort", "-C", str(path)], check=True,
                             capture_output=True, text=True).stdout
    sizes = {name: 0 for name in PARTS}
    for line in listing.splitlines():
        fields = line.split(" ", 3)
        if len(fields) < 4 or fields[2] in "Uwv":
            continue
        sizes[part(fields[3])] += int(fields[1], 16)
    dynamic = subprocess.run([f"{prefix}nm", "-D", "--defined-only", str(path)], check=True,
                             capture_output=True, text=True).stdout
    return {"path": str(path), "abi": _ABI[machine(path)], "size": path.stat().st_size,
            "stripped": stripped_size, "parts": sizes,
            "other": stripped_size - sum(sizes.values()),
            "exported": len(dynamic.splitlines())}


def kib(n: int) -> str:
    return f"{n / 1024:,.0f} KiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("libraries", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.libraries:
        result = measure(path)
        print(f"{result['path']} ({result['abi']}): {kib(result['size'])} as built, "
              f"{kib(result['stripped'])} stripped, {result['exported']} exported symbols")
        for name in PARTS:
            print(f"  {name:20} {kib(result['parts'][name]):>12}")
        print(f"  {'headers, tables':20} {kib(result['other']):>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
