"""Seeds for the engine fuzz target (mace/libmace/fuzz/engine_fuzzer.cc) from
the model zoo: the first layers of MobileNet v2 (mace_tools.mobilenet_v2) on
an 8x8 input, with and without an offline memory plan, in the fuzzer's
[4-byte graph length][graph][weights] layout.

  python3 tools/python/mace_tools/engine_fuzz_seeds.py OUTPUT_DIR
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mace_tools import mobilenet_v2, proto  # noqa: E402  pylint: disable=wrong-import-position

mace_pb2 = proto.load()


def _head(ops: int) -> tuple[bytes, bytes]:
    """The graph and weights of MobileNet v2's first `ops` ops."""
    builder, _ = mobilenet_v2.build(size=8)
    full = builder.net
    blob = bytes(builder._blob)  # pylint: disable=protected-access
    net = mace_pb2.NetDef()
    net.name = "mobilenet_v2_head"
    net.input_info.extend(full.input_info)
    net.op.extend(full.op[:ops])
    used = {name for op in net.op for name in op.input}
    weights = bytearray()
    for tensor in full.tensors:
        if tensor.name not in used:
            continue
        weights.extend(b"\0" * (-len(weights) % 64))
        copy = net.tensors.add()
        copy.CopyFrom(tensor)
        copy.offset = len(weights)
        weights.extend(blob[tensor.offset:tensor.offset + tensor.data_size * 4])
    net.output_info.add().name = net.op[-1].output[0]
    return net.SerializeToString(), bytes(weights)


def _planned(graph: bytes) -> bytes:
    """The same graph with an offline memory plan: every output at its own
    offset (no sharing, so the plan is valid whatever the lifetimes)."""
    net = mace_pb2.NetDef()
    net.ParseFromString(graph)
    offset = 0
    for op in net.op:
        op.output_mem_offset.append(offset)
        offset += 64 * 1024
    return net.SerializeToString()


def _pack(graph: bytes, weights: bytes) -> bytes:
    return struct.pack("<I", len(graph)) + graph + weights


def write(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for ops in (2, 3):
        graph, weights = _head(ops)
        for name, blob in ((f"mobilenet_v2_head{ops}", graph),
                           (f"mobilenet_v2_head{ops}_planned", _planned(graph))):
            path = out / name
            path.write_bytes(_pack(blob, weights))
            paths.append(path)
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    for written in write(Path(sys.argv[1])):
        print(f"{written} ({written.stat().st_size} bytes)")
