#!/usr/bin/env python3
"""Runs the shell and C++ blocks of README.md and of every page under docs/,
subfolders included (docs/reports/ is generated and left out), as a reader
would copy them, and prints one PASS, FAIL or SKIP line per block.

    tools/docs_test.py                      every block
    tools/docs_test.py docs/how-to/cpp.md   the blocks of one doc
    tools/docs_test.py README.md:46         one block, by its fence's line
    tools/docs_test.py --list               what would run and what is skipped

Blocks are marked in the docs with HTML comments right above the fence (see
tools/python/mace_tools/doc_blocks.py and docs/contributing/testing.md). Only the Python
standard library is used here; the blocks themselves use the virtualenv.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))

from mace_tools.docs_runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
