#!/usr/bin/env python3
"""Converts, builds, runs and benchmarks the models of a MACE deployment file.

    tools/converter.py build --config models/mobilenet_v2.yml
    tools/converter.py run --config models/mobilenet_v2.yml --validate

It runs with the project's virtualenv (.venv, made by tools/bootstrap.sh);
started with another interpreter it switches to that one. See docs/how-to/convert.md.
"""
import os
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
VENV = TOOLS.parent / ".venv"

if __name__ == "__main__":
    venv_python = VENV / "bin" / "python"
    if venv_python.exists() and Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(str(venv_python), [str(venv_python), str(Path(__file__).resolve()),
                                    *sys.argv[1:]])
    sys.path.insert(0, str(TOOLS / "python"))
    from mace_converter.cli import main
    sys.exit(main())
