"""The start of the tools/*.py scripts: run under the project's virtualenv
(.venv), switching to its interpreter when started with another, then call
the script's module's main(). Plain standard library, so that it works
before the switch."""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path


def run_in_venv(script: str, module: str) -> int:
    tools = Path(script).resolve().parent
    venv = tools.parent / ".venv"
    venv_python = venv / "bin" / "python"
    if venv_python.exists() and Path(sys.prefix).resolve() != venv.resolve():
        os.execv(str(venv_python), [str(venv_python), str(Path(script).resolve()),
                                    *sys.argv[1:]])
    return importlib.import_module(module).main()
