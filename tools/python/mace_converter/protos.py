"""Compiles the frontends' own .proto schemas (frontends/*.proto) with protoc
the first time they are needed, into build/python, so no generated file is
checked in (as mace_tools/proto.py does for mace.proto)."""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from mace_converter.api import ConversionError

_SCHEMAS = Path(__file__).resolve().parent / "frontends"
_OUT = Path(__file__).resolve().parents[3] / "build" / "python"


def load(stem: str) -> ModuleType:
    """The generated module of frontends/<stem>.proto (<stem>_pb2)."""
    source = _SCHEMAS / f"{stem}.proto"
    target = _OUT / f"{stem}_pb2.py"
    if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
        protoc = shutil.which("protoc")
        if protoc is None:
            raise ConversionError("protoc is needed to read this model format "
                                  "(apt-get install protobuf-compiler)")
        _OUT.mkdir(parents=True, exist_ok=True)
        # Generate aside and rename, so concurrent runs never see half a file.
        with tempfile.TemporaryDirectory(dir=_OUT) as scratch:
            subprocess.run([protoc, f"--proto_path={_SCHEMAS}", f"--python_out={scratch}",
                            str(source)], check=True)
            os.replace(Path(scratch) / target.name, target)
    if str(_OUT) not in sys.path:
        sys.path.insert(0, str(_OUT))
    return importlib.import_module(f"{stem}_pb2")
