"""Finds the fenced code blocks of the Markdown docs that tools/docs_test.py
runs, with the markers that steer it.

A block is checked when its fence names a language: `bash`, `sh` or `shell`
blocks run as scripts, `cpp`, `c++` or `cc` blocks are compiled and run.
HTML comments on the lines right above the fence steer the runner:

    <!-- docs-test: skip (why: the whole suite, 20 minutes) -->
    <!-- docs-test: timeout 900 -->
    <!-- docs-test: save-as build/app.cc -->

`skip` needs a reason in brackets. `save-as` writes a C++ block to a path
under build/ before any block runs, so a shell block elsewhere can build it
as the docs tell the reader to.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Optional

LANGUAGES = {"bash": "bash", "sh": "bash", "shell": "bash",
             "cpp": "cpp", "c++": "cpp", "cc": "cpp"}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
_SKIP = re.compile(r"^skip\s*\((?P<reason>.*)\)$")
_TIMEOUT = re.compile(r"^timeout\s+(?P<seconds>\d+)$")
_SAVE_AS = re.compile(r"^save-as\s+(?P<path>\S+)$")
# The first word of an untagged block that a reader would type at a prompt.
_COMMAND = re.compile(r"^(bazel|bash|sh|g\+\+|python3?|pip|\.venv/\S+|tools/\S+\.(sh|py)|"
                      r"bazel-bin/\S+|[A-Z][A-Z0-9_]*=\S*|mace_run|mace_plan)$")


class MarkerError(ValueError):
    """A docs-test marker that cannot be read; names the file and line."""


@dataclass
class Block:
    """One fenced block: where it is, what it holds and how to treat it."""
    path: Path
    line: int  # 1-based line of the opening fence
    language: str  # "bash", "cpp", or the fence's own word for the rest
    text: str
    skip_reason: Optional[str] = None
    timeout: Optional[int] = None
    save_as: Optional[str] = None

    @property
    def checked(self) -> bool:
        return self.language in ("bash", "cpp")

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def extract(text: str, path: Path) -> list[Block]:
    """Every fenced block of a Markdown text, markers applied."""
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent = len(opening.group("indent"))
        fence = opening.group("fence")
        info = opening.group("info").lower()
        body: list[str] = []
        end = index + 1
        while end < len(lines):
            closing = _FENCE.match(lines[end])
            if (closing and closing.group("fence")[0] == fence[0]
                    and len(closing.group("fence")) >= len(fence)
                    and not closing.group("info")):
                break
            body.append(_dedent(lines[end], indent))
            end += 1
        block = Block(path=path, line=index + 1, language=LANGUAGES.get(info, info),
                      text="\n".join(body) + "\n")
        _apply_markers(block, lines, index)
        blocks.append(block)
        index = end + 1
    return blocks


def untagged_commands(blocks: list[Block]) -> list[Block]:
    """Blocks with no language whose first line looks like a shell command:
    a reader copies them, so they must be tagged and checked (or skipped)."""
    found = []
    for block in blocks:
        if block.language:
            continue
        words = block.text.split()
        if words and _COMMAND.match(words[0]):
            found.append(block)
    return found


def _apply_markers(block: Block, lines: list[str], fence_index: int) -> None:
    above = fence_index - 1
    while above >= 0:
        marker = _MARKER.match(lines[above])
        if not marker:
            break
        _apply(block, marker.group("body"), above + 1)
        above -= 1


def _apply(block: Block, body: str, line: int) -> None:
    where = f"{block.path}:{line}"
    skip = _SKIP.match(body)
    timeout = _TIMEOUT.match(body)
    save_as = _SAVE_AS.match(body)
    if skip:
        reason = skip.group("reason").strip()
        if not reason:
            raise MarkerError(f"{where}: docs-test skip needs a reason in brackets")
        block.skip_reason = reason
    elif timeout:
        block.timeout = int(timeout.group("seconds"))
    elif save_as:
        target = PurePosixPath(save_as.group("path"))
        if target.is_absolute() or target.parts[0] != "build" or ".." in target.parts:
            raise MarkerError(f"{where}: docs-test save-as must name a path under build/")
        if block.language not in ("cpp", "c", "java", "python"):
            raise MarkerError(f"{where}: docs-test save-as is for C++, C, Java and Python blocks")
        block.save_as = str(target)
    else:
        raise MarkerError(f"{where}: unknown docs-test marker '{body}' (skip (reason), "
                          "timeout SECONDS or save-as build/PATH)")


def _dedent(line: str, indent: int) -> str:
    """Removes up to `indent` leading spaces, as Markdown does in list items."""
    strip = 0
    while strip < indent and strip < len(line) and line[strip] == " ":
        strip += 1
    return line[strip:]
