"""Loads the Python bindings of mace/proto/mace.proto.

The bindings are generated with Debian's protoc into build/python the first
time they are needed (or when the .proto changes), so no generated file is
checked in.
"""
import importlib
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
_PROTO = REPO / "mace" / "proto" / "mace.proto"
_OUT = REPO / "build" / "python"


def load():
    """Returns the generated mace_pb2 module."""
    target = _OUT / "mace_pb2.py"
    if not target.exists() or target.stat().st_mtime < _PROTO.stat().st_mtime:
        _OUT.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["protoc", f"--proto_path={_PROTO.parent}", f"--python_out={_OUT}", str(_PROTO)],
            check=True)
    if str(_OUT) not in sys.path:
        sys.path.insert(0, str(_OUT))
    return importlib.import_module("mace_pb2")
