"""What the emulated Hexagon DSP executes for one inference of MobileNet v1
and v2 (runtime: dsp, uint8): packets, instructions, HVX packets and HVX
multiply instructions, and the MACs per HVX multiply of the convolutions.

    PYTHONPATH=tools/python .venv/bin/python -m mace_tools.dsp_insn_count [--size 64]

Each model is the zoo architecture at --size x --size input, converted with
runtime: dsp (quantized on random calibration inputs). mace_run
--device=HEXAGON runs it twice, with 1 and 2 timed runs after the first, and
qemu-hexagon loads the TCG plugin tools/qemu/pc_count.c, which counts the
executions of each packet address; the difference of the two sessions is
one inference, with set-up and transfers cancelled out. The packets are
joined with llvm-objdump's disassembly of the DSP image: a packet's
instructions are its words (a duplex word is two, a constant extender none);
an HVX instruction names a vector register or vmem; an HVX multiply is a
vrmpy, vmpy, vdmpy, vtmpy or vmpa.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[3]
WORK = REPO / "build" / "dsp_insn_count"
PLUGIN_SOURCE = REPO / "tools" / "qemu" / "pc_count.c"
MODELS = ("mobilenet_v1", "mobilenet_v2")
LINE = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2}\s){4}\s*[0-9a-f]{8}\s+(\{?)\s*(.*?)\s*$")
SYMBOL = re.compile(r"^([0-9a-f]+) <(.+)>:$")
HVX = re.compile(r"\bv\d+\b|\bvmem\b|\bw\d+\b|\bq\d\b")
HVX_MULTIPLY = re.compile(r"\bv(?:rmpy|mpy|dmpy|tmpy|mpa)")
# "   3  Conv2D   conv_4   0.1234   1.2%   118013952  [1,64,56,56]"
OP_ROW = re.compile(r"^\s*\d+\s+(\S+)\s+(\S+)\s+[\d.]+\s+[\d.]+%\s+(\d+)\s+\[", re.MULTILINE)


def run(command: list[str], env: dict | None = None) -> str:
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"dsp_insn_count: `{' '.join(command)}` failed:\n{result.stdout[-2000:]}"
                 f"{result.stderr[-2000:]}")
    return result.stdout + result.stderr


class Packet:
    def __init__(self, symbol: str):
        self.symbol, self.instructions, self.hvx, self.multiplies = symbol, 0, 0, 0


def disassemble(image: Path) -> dict[int, Packet]:
    """Packets of the image by start address."""
    return parse_disassembly(run(["llvm-objdump-14", "-d", "-C", "--mattr=+hvxv67,+hvx-length128b",
                                  str(image)]))


def parse_disassembly(text: str) -> dict[int, Packet]:
    packets: dict[int, Packet] = {}
    symbol, current, closed = "[unknown]", None, True
    for line in text.splitlines():
        found = SYMBOL.match(line)
        if found:
            symbol, closed = found.group(2), True
            continue
        found = LINE.match(line)
        if not found:
            continue
        address, opens, body = int(found.group(1), 16), found.group(2), found.group(3)
        # A word objdump cannot decode ("<unknown>") shows no braces; after
        # a closed packet it starts the next one.
        if opens or closed or current is None:
            current = packets.setdefault(address, Packet(symbol))
        body = body.split(":endloop")[0].strip()
        closed = body.endswith("}")
        body = body.rstrip("}")
        if body.startswith("immext"):
            continue
        for part in body.split(";"):
            current.instructions += 1
            if HVX.search(part):
                current.hvx += 1
                current.multiplies += int(bool(HVX_MULTIPLY.search(part)))
    return packets


def by_symbol_table(name: str, symbols: dict[str, Counter], total: int, limit: int) -> str:
    """The `limit` symbols with the most instructions: their instructions,
    share of the inference, and the scalar (non-HVX) share of their own."""
    rows = [f"| {name}: symbol | instructions | share | scalar share |", "|---|---:|---:|---:|"]
    ranked = sorted(symbols.items(), key=lambda item: -item[1]["instructions"])[:limit]
    for symbol, tally in ranked:
        count = tally["instructions"]
        scalar = 1 - tally["hvx"] / count if count else 0.0
        rows.append(f"| `{symbol}` | {count:,} | {count / total:.1%} | {scalar:.1%} |")
    return "\n".join(rows)


def read_counts(path: Path) -> Counter:
    counts: Counter = Counter()
    for line in path.read_text().splitlines():
        address, count = line.split()
        if address == "lost":
            sys.exit(f"dsp_insn_count: the plugin's table overflowed ({path})")
        counts[int(address, 16)] = int(count)
    return counts


def convert(name: str, size: int, work: Path = WORK) -> tuple[Path, Path]:
    """The zoo model `name` at `size` converted with runtime: dsp under
    `work`: its graph and data files."""
    sys.path.insert(0, str(REPO / "tools" / "python"))
    from mace_tools.zoo_deployment import classifier_model, write_deployment, write_zoo_onnx
    directory = work / name
    directory.mkdir(parents=True, exist_ok=True)
    model = write_zoo_onnx(name, size, directory, f"{name}_{size}.onnx")
    config = write_deployment(directory / "dsp.yml", f"dsp_count_{name}",
                              {name: classifier_model(model, size, "dsp", "-1,1")})
    env = dict(os.environ, MACE_BUILD_DIR=str(work / "build"))
    run([sys.executable, str(REPO / "tools" / "converter.py"), "convert", "--config",
         str(config)], env=env)
    models = work / "build" / ".work" / f"dsp_count_{name}" / "models"
    return models / f"{name}.pb", models / f"{name}.data"


def conv_macs(mace_run: Path, graph: Path, data: Path, size: int) -> dict[str, int]:
    """MACs per inference of the convolutions, by the DSP path they take
    (mace/ops/hexagon/kernels_conv.cc): HVX (Conv2D and FullyConnected with at most
    65,536 taps per output, depthwise up to 4 wide with strides up to 4,
    dilated across only at stride 1 across) or scalar (the others)."""
    from mace_tools import proto
    net = proto.load().NetDef()
    net.ParseFromString(graph.read_bytes())
    ops = {op.name: op for op in net.op}
    dims = {t.name: list(t.dims) for t in net.tensors}
    text = run([str(mace_run), f"--model_file={graph}", f"--model_data_file={data}",
                "--input_node=input", f"--input_shape=1,3,{size},{size}",
                "--output_node=output", "--output_shape=1,1000", "--round=1",
                "--omp_num_threads=1", "--benchmark"])
    macs = Counter()
    for op_type, name, count in OP_ROW.findall(text):
        op = ops.get(name)
        if op is None or op_type not in ("Conv2D", "DepthwiseConv2d", "FullyConnected"):
            continue
        args = {a.name: list(a.ints) for a in op.arg}
        filter_dims = dims[op.input[1]]
        if op_type == "DepthwiseConv2d":
            strides = args.get("strides", [1, 1])
            hvx = (filter_dims[3] <= 4 and max(strides) <= 4 and
                   (args.get("dilations", [1, 1])[1] == 1 or strides[1] == 1))
        else:
            hvx = int(np.prod(filter_dims[1:])) <= 65536
        macs["hvx" if hvx else "scalar"] += int(count)
    return macs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64, help="input height and width")
    parser.add_argument("--by-symbol", type=int, default=0, metavar="N",
                        help="also list the N symbols (kernels) with the most instructions")
    parser.add_argument("--image", type=Path,
                        help="count this DSP image instead of //mace/dsp:dsp_runtime")
    parser.add_argument("--mace_run", type=Path,
                        help="run this mace_run instead of //mace/tools:mace_run")
    args = parser.parse_args(argv)
    targets = (([] if args.mace_run else ["//mace/tools:mace_run"]) +
               ([] if args.image else ["//mace/dsp:dsp_runtime"]))
    if targets:
        run(["bazel", "build", "--color=no", "--curses=no"] + targets)
    mace_run = (args.mace_run.resolve() if args.mace_run else
                REPO / "bazel-bin" / "mace" / "tools" / "mace_run")
    image = args.image.resolve() if args.image else (
        REPO / "bazel-bin" / "mace" / "dsp" / "dsp_runtime.elf")
    plugin = WORK / "libpc_count.so"
    WORK.mkdir(parents=True, exist_ok=True)
    run(["gcc", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(plugin),
         str(PLUGIN_SOURCE), "-lpthread"])
    wrapper = WORK / "qemu_hexagon_counting.sh"
    wrapper.write_text(f'#!/bin/sh\nexec qemu-hexagon -plugin {plugin},out="$PC_COUNT_OUT" '
                       '"$@"\n')
    wrapper.chmod(0o755)
    packets = disassemble(image)
    print(f"| model ({args.size}x{args.size}) | packets | instructions | HVX packets | "
          "HVX instructions | scalar share | HVX multiplies | conv MACs on HVX | "
          "MACs per HVX multiply | conv MACs in scalar code |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in MODELS:
        graph, data = convert(name, args.size)
        sessions = []
        for rounds in (1, 2):
            out = WORK / name / f"counts_{rounds}.txt"
            input_file = WORK / name / "input"
            np.save(f"{input_file}_input.npy",
                    np.random.default_rng(1).uniform(-1, 1, (1, 3, args.size, args.size))
                    .astype(np.float32))
            env = dict(os.environ, MACE_QEMU_HEXAGON=str(wrapper), MACE_DSP_RUNTIME=str(image),
                       PC_COUNT_OUT=str(out))
            run([str(mace_run), f"--model_file={graph}", f"--model_data_file={data}",
                 "--input_node=input", f"--input_shape=1,3,{args.size},{args.size}",
                 "--output_node=output", "--output_shape=1,1000", f"--input_file={input_file}",
                 "--device=HEXAGON", f"--round={rounds}"], env=env)
            sessions.append(read_counts(out))
        one = Counter({a: sessions[1][a] - sessions[0][a] for a in sessions[1]})
        totals = Counter()
        symbols: dict[str, Counter] = {}
        for address, count in one.items():
            packet = packets.get(address)
            if packet is None or count <= 0:
                continue
            tally = symbols.setdefault(packet.symbol, Counter())
            tally["instructions"] += count * packet.instructions
            tally["hvx"] += count * packet.hvx
            totals["packets"] += count
            totals["instructions"] += count * packet.instructions
            totals["hvx_packets"] += count * (packet.hvx > 0)
            totals["hvx"] += count * packet.hvx
            totals["multiplies"] += count * packet.multiplies
        macs = conv_macs(mace_run, graph, data, args.size)
        per = macs["hvx"] / totals["multiplies"] if totals["multiplies"] else float("nan")
        scalar = 1 - totals["hvx"] / totals["instructions"] if totals["instructions"] else 0.0
        print(f"| {name} | {totals['packets']:,} | {totals['instructions']:,} | "
              f"{totals['hvx_packets']:,} | {totals['hvx']:,} | {scalar:.1%} | "
              f"{totals['multiplies']:,} | "
              f"{macs['hvx']:,} | {per:.1f} | {macs['scalar']:,} |", flush=True)
        if args.by_symbol:
            print(by_symbol_table(name, symbols, totals["instructions"], args.by_symbol),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
