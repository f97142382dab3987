#!/usr/bin/env python3
"""Stripped size of a shared library and what its parts take.

    tools/library_size.py LIB.so [LIB.so ...]
    tools/library_size.py LIB.so [LIB.so ...] --weights MODEL.data

For each library: its size as built, stripped (strip --strip-all), and the
bytes of its symbols (nm --size-sort, demangled) grouped by where they come
from: ops (mace::ops), the memory planner (mace::memory), protobuf (the
generated mace.proto classes, and protobuf itself when it is linked in), the
OpenCL runtime, a model compiled in as code, and the rest of the engine. The
remainder ("headers, tables") is what no symbol covers: ELF and dynamic
symbol tables, relocations, unwind tables, string literals. Picks the cross
binutils from the ELF machine (x86-64, aarch64, arm).

With --weights (the model's .data file), the libraries are pairs per ABI,
one without a model and one with the model compiled in (told apart by the
model-code symbols they hold), and a Markdown table compares each measured
size with the guide: 3 MiB without a model, weights/2 + 3 MiB with it. An
ABI without both libraries, or a library with model code but fewer model
bytes than the weights, is an error: every number in the table is measured.
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
    # Identical code folding leaves several symbols on one copy: count the
    # bytes at an address once.
    seen = set()
    for line in listing.splitlines():
        fields = line.split(" ", 3)
        if len(fields) < 4 or fields[2] in "Uwv" or fields[0] in seen:
            continue
        seen.add(fields[0])
        sizes[part(fields[3])] += int(fields[1], 16)
    dynamic = subprocess.run([f"{prefix}nm", "-D", "--defined-only", str(path)], check=True,
                             capture_output=True, text=True).stdout
    return {"path": str(path), "abi": _ABI[machine(path)], "size": path.stat().st_size,
            "stripped": stripped_size, "parts": sizes,
            "other": stripped_size - sum(sizes.values()),
            "exported": len(dynamic.splitlines())}


MIB = 1024 * 1024
GUIDE_NO_MODEL = 3 * MIB


def kib(n: int) -> str:
    return f"{n / 1024:,.0f} KiB"


def mib(n: int) -> str:
    return f"{n / MIB:.2f} MiB"


def guide_with_model(weights_bytes: int) -> int:
    """The guide for a library with a model compiled in: weights/2 + 3 MiB."""
    return weights_bytes // 2 + GUIDE_NO_MODEL


def pairs(results: list[dict], weights_bytes: int) -> dict[str, dict[str, dict]]:
    """{abi: {"no model": result, "model": result}}, checked: each ABI has
    exactly one library of each kind, and the one with the model holds at
    least the weights' bytes as model code."""
    by_abi: dict[str, dict[str, dict]] = {}
    for result in results:
        model_bytes = result["parts"]["model code"]
        kind = "model" if model_bytes else "no model"
        if kind == "model" and model_bytes < weights_bytes:
            raise SystemExit(f"{result['path']}: {model_bytes} bytes of model code, fewer "
                             f"than the {weights_bytes} bytes of weights: the weights are "
                             f"not compiled in")
        if kind in by_abi.setdefault(result["abi"], {}):
            text = "with a model" if kind == "model" else "without a model"
            raise SystemExit(f"{result['abi']}: two libraries {text}: "
                             f"{by_abi[result['abi']][kind]['path']} and {result['path']}")
        by_abi[result["abi"]][kind] = result
    for abi, found in by_abi.items():
        for kind, text in (("no model", "without a model"), ("model", "with the model")):
            if kind not in found:
                raise SystemExit(f"{abi}: no library {text} was given")
    return by_abi


def within(size: int, guide: int) -> str:
    return "within" if size <= guide else f"over by {kib(size - guide)}"


def model_table(results: list[dict], weights: Path) -> str:
    """Markdown: each ABI's measured sizes with and without the model
    against the guide."""
    weights_bytes = weights.stat().st_size
    guide = guide_with_model(weights_bytes)
    lines = [f"| ABI | no model | guide 3 MiB | with {weights.stem} | of which model code | "
             f"guide {mib(weights_bytes)}/2 + 3 MiB = {mib(guide)} |",
             "|---|---|---|---|---|---|"]
    for abi, found in sorted(pairs(results, weights_bytes).items()):
        bare, full = found["no model"]["stripped"], found["model"]["stripped"]
        lines.append(f"| {abi} | {kib(bare)} ({mib(bare)}) | {within(bare, GUIDE_NO_MODEL)} | "
                     f"{kib(full)} ({mib(full)}) | "
                     f"{kib(found['model']['parts']['model code'])} | {within(full, guide)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("libraries", nargs="+", type=Path)
    parser.add_argument("--weights", type=Path,
                        help="the model's .data file: compare pairs of libraries without and "
                             "with that model compiled in against the guide")
    args = parser.parse_args(argv)
    results = []
    for path in args.libraries:
        result = measure(path)
        results.append(result)
        print(f"{result['path']} ({result['abi']}): {kib(result['size'])} as built, "
              f"{kib(result['stripped'])} stripped, {result['exported']} exported symbols")
        for name in PARTS:
            print(f"  {name:20} {kib(result['parts'][name]):>12}")
        print(f"  {'headers, tables':20} {kib(result['other']):>12}")
    if args.weights:
        print()
        print(model_table(results, args.weights))
    return 0


if __name__ == "__main__":
    sys.exit(main())
