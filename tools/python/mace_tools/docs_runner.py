"""tools/docs_test.py: runs the shell and C++ blocks of README.md and every
hand-written page under docs/ (docs/reports/ is generated and left out) as a
reader would copy them, from the repository root, in document order.

Shell blocks run as `bash -e -o pipefail`, each in a fresh shell started at
the repository root. C++ blocks are compiled with g++ against the library
package that `tools/converter.py build` lays out in build/<library_name>/
(built first when it is missing) and run from the repository root. A block
passes when it exits with 0 within its timeout and leaves the work tree as
it found it outside build/: docs examples write their outputs under build/,
never into tracked files or the repository root.
"""
from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from mace_tools.doc_blocks import Block, MarkerError, extract, untagged_commands

REPO = Path(__file__).resolve().parents[3]
WORK = Path("build") / "docs_test"
DEFAULT_TIMEOUT = 300
# The package C++ blocks are built against, and the deployment file that makes it.
PACKAGE_CONFIG = "models/mobilenet_v2.yml"
PACKAGE = Path("build") / "mobilenet_v2"
ARCHIVE = PACKAGE / "lib" / "host" / "libmace_mobilenet_v2.a"
LOG_TAIL = 40


@dataclass
class Outcome:
    status: str  # PASS, FAIL or SKIP
    detail: str
    log: Optional[Path] = None


# Generated pages: their generators own them, and their commands are the
# heavy benchmark runs that docs/contributing/testing.md lists.
GENERATED = Path("docs") / "reports"


def doc_files(repo: Path) -> list[Path]:
    """README.md first, then the hand-written pages under docs/ (subfolders
    too) in path order, relative to the repo."""
    pages = (p.relative_to(repo) for p in (repo / "docs").rglob("*.md"))
    return [Path("README.md")] + sorted(p for p in pages if GENERATED not in p.parents)


def collect(repo: Path, files: Sequence[Path]) -> list[Block]:
    blocks: list[Block] = []
    for path in files:
        blocks += extract((repo / path).read_text(encoding="utf-8"), path)
    return blocks


def tree_state(repo: Path) -> dict[str, str]:
    """Changed and untracked paths outside build/, each with a content stamp,
    so a block that rewrites an already modified file is noticed too."""
    listing = subprocess.run(
        ["git", "status", "--porcelain", "-z", "--untracked-files=all"], cwd=repo,
        check=True, capture_output=True, text=True).stdout
    state = {}
    for entry in filter(None, listing.split("\0")):
        path = entry[3:]
        if path.startswith("build/") or not path:
            continue
        full = repo / path
        try:
            stat = full.stat()
            state[path] = f"{entry[:2]} {stat.st_size} {stat.st_mtime_ns}"
        except OSError:
            state[path] = f"{entry[:2]} gone"
    return state


def changed_paths(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(path for path in set(before) | set(after)
                  if before.get(path) != after.get(path))


def run_logged(command: list[str], log: Path, timeout: int, cwd: Path,
               append: bool = False) -> tuple[Optional[int], float]:
    """Runs a command with its output in `log`; None as the status on timeout.
    The command gets its own process group, which a timeout ends whole."""
    start = time.monotonic()
    with log.open("a" if append else "w", encoding="utf-8") as out:
        out.write(f"$ {shlex.join(command)}\n")
        out.flush()
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            status: Optional[int] = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            status = None
    return status, time.monotonic() - start


def block_name(block: Block) -> str:
    return f"{block.path.as_posix().replace('/', '_').removesuffix('.md')}_{block.line}"


def ensure_package(repo: Path, log: Path) -> Optional[str]:
    """Builds the library package C++ blocks link against, when it is missing."""
    if (repo / ARCHIVE).exists():
        return None
    status, _ = run_logged([str(repo / ".venv" / "bin" / "python"), "tools/converter.py",
                            "build", "--config", PACKAGE_CONFIG], log, 1800, repo)
    return None if status == 0 else f"tools/converter.py build failed (log: {log})"


def run_bash(block: Block, repo: Path, timeout: int) -> tuple[Optional[int], float, Path]:
    work = repo / WORK
    script = work / "blocks" / f"{block_name(block)}.sh"
    script.write_text(block.text, encoding="utf-8")
    log = work / "logs" / f"{block_name(block)}.log"
    status, seconds = run_logged(["bash", "-e", "-o", "pipefail", str(script)], log, timeout,
                                 repo)
    return status, seconds, log


def run_cpp(block: Block, repo: Path, timeout: int) -> tuple[Optional[int], float, Path]:
    work = repo / WORK
    name = block_name(block)
    source = work / "blocks" / f"{name}.cc"
    source.write_text(block.text, encoding="utf-8")
    binary = work / "bin" / name
    log = work / "logs" / f"{name}.log"
    start = time.monotonic()
    problem = ensure_package(repo, log)
    if problem:
        return 1, time.monotonic() - start, log
    flags = (repo / ARCHIVE.parent / "link_flags.txt").read_text().split()
    compile_command = ["g++", "-std=c++17", "-O1", "-Wall", str(source),
                       f"-I{repo / PACKAGE / 'include'}", str(repo / ARCHIVE), *flags,
                       "-o", str(binary)]
    status, _ = run_logged(compile_command, log, timeout, repo, append=True)
    if status == 0:
        left = max(1, int(timeout - (time.monotonic() - start)))
        status, _ = run_logged([str(binary)], log, left, repo, append=True)
    return status, time.monotonic() - start, log


def run_block(block: Block, repo: Path, default_timeout: int) -> Outcome:
    if block.skip_reason:
        return Outcome("SKIP", block.skip_reason)
    timeout = block.timeout or default_timeout
    before = tree_state(repo)
    runner = run_bash if block.language == "bash" else run_cpp
    status, seconds, log = runner(block, repo, timeout)
    stray = changed_paths(before, tree_state(repo))
    if status is None:
        return Outcome("FAIL", f"timed out after {timeout} s", log)
    if status != 0:
        return Outcome("FAIL", f"exit code {status}, {seconds:.1f} s", log)
    if stray:
        return Outcome("FAIL", "wrote outside build/: " + ", ".join(stray), log)
    return Outcome("PASS", f"{seconds:.1f} s", log)


def save_files(blocks: Sequence[Block], repo: Path) -> None:
    """Writes the blocks marked save-as, so any block may use them."""
    for block in blocks:
        if block.save_as:
            target = repo / block.save_as
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")


def selected(block: Block, only: Sequence[str]) -> bool:
    return not only or any(block.where == key or str(block.path) == key for key in only)


def tail(log: Optional[Path]) -> str:
    if log is None or not log.exists():
        return ""
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n".join("    | " + line for line in lines[-LOG_TAIL:])


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="docs_test.py",
        description="Runs the bash and C++ blocks of README.md and the pages "
                    "under docs/ (docs/reports/ is generated and left out).")
    parser.add_argument("only", nargs="*", metavar="FILE[:LINE]",
                        help="run only these docs or blocks (e.g. docs/how-to/cpp.md:27)")
    parser.add_argument("--list", action="store_true",
                        help="list the blocks and what would happen to each, run nothing")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, metavar="S",
                        help="seconds per block without a timeout marker (default: "
                             "%(default)s)")
    args = parser.parse_args(argv)
    repo = REPO
    try:
        blocks = collect(repo, doc_files(repo))
    except MarkerError as error:
        print(f"docs_test: error: {error}", file=sys.stderr)
        return 1
    passed = failed = skipped = 0
    for block in untagged_commands(blocks):
        if selected(block, args.only):
            print(f"FAIL {block.where}: a command block without a language; tag it "
                  "bash (or sh) so it is checked", flush=True)
            failed += 1
    checked = [b for b in blocks if b.checked and selected(b, args.only)]
    if args.list:
        for block in checked:
            what = f"skip ({block.skip_reason})" if block.skip_reason else "run"
            print(f"{block.where} {block.language}: {what}")
        return 0
    for directory in ("blocks", "logs", "bin"):
        (repo / WORK / directory).mkdir(parents=True, exist_ok=True)
    save_files(blocks, repo)
    start = time.monotonic()
    for block in checked:
        outcome = run_block(block, repo, args.timeout)
        print(f"{outcome.status} {block.where} ({block.language}): {outcome.detail}",
              flush=True)
        if outcome.status == "PASS":
            passed += 1
        elif outcome.status == "SKIP":
            skipped += 1
        else:
            failed += 1
            print(f"    log: {outcome.log}\n{tail(outcome.log)}", flush=True)
    print(f"docs_test: {time.monotonic() - start:.0f} s")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0
