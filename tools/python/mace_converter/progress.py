"""Errors the command line prints without a traceback, timed steps, and
subprocess helpers shared by the build, run and benchmark commands."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator, Optional, Sequence

REPO = Path(__file__).resolve().parents[3]


def build_root() -> Path:
    """Where build products go: build/ in the repository, or $MACE_BUILD_DIR."""
    return Path(os.environ.get("MACE_BUILD_DIR") or REPO / "build")


class UserError(Exception):
    """A problem the user can fix (a deployment file, a missing build, a
    failed command). The command line prints the message and exits 1."""


def shown(path: Path) -> str:
    """`path` relative to the repository when it is inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def say(text: str = "") -> None:
    print(text, flush=True)


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    """Prints `==> name`, runs the body and prints its elapsed time."""
    say(f"==> {name}")
    start = time.monotonic()
    try:
        yield
    except BaseException:
        say(f"    {name}: failed after {time.monotonic() - start:.1f} s")
        raise
    say(f"    {name}: {time.monotonic() - start:.1f} s")


def shell_text(command: Sequence[str]) -> str:
    return " ".join(_quote(part) for part in command)


def _quote(part: str) -> str:
    safe = all(c.isalnum() or c in "-_./=:,+@%" for c in part)
    return part if part and safe else "'" + part.replace("'", "'\\''") + "'"


def run_command(command: Sequence[str], *, what: str, cwd: Optional[Path] = None,
                stream: bool = False, quiet_prefixes: Sequence[str] = (),
                env: Optional[dict[str, str]] = None) -> subprocess.CompletedProcess:
    """Runs `command`; on a non-zero exit raises UserError naming `what` and
    showing the end of the command's output.

    With `stream`, stderr and stdout lines are echoed (indented) while the
    command runs, except lines starting with one of `quiet_prefixes`.
    """
    full_env = dict(os.environ, **(env or {}))
    try:
        if not stream:
            result = subprocess.run(list(command), cwd=cwd, env=full_env, text=True,
                                    capture_output=True)
        else:
            result = _run_streaming(command, cwd, full_env, quiet_prefixes)
    except FileNotFoundError as error:
        raise UserError(f"{what}: cannot run {command[0]}: {error.strerror}") from None
    if result.returncode != 0:
        output = (result.stdout or "") + (result.stderr or "")
        tail = "\n".join(output.strip().splitlines()[-25:])
        raise UserError(f"{what} failed (exit code {result.returncode}):\n"
                        f"$ {shell_text(command)}\n{tail}")
    return result


def _run_streaming(command: Sequence[str], cwd: Optional[Path], env: dict[str, str],
                   quiet_prefixes: Sequence[str]) -> subprocess.CompletedProcess:
    lines = []
    with subprocess.Popen(list(command), cwd=cwd, env=env, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT) as process:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            stripped = line.rstrip()
            if stripped and not stripped.startswith(tuple(quiet_prefixes)):
                print("    | " + stripped, flush=True)
    return subprocess.CompletedProcess(list(command), process.returncode, "".join(lines), "")


def venv_python() -> str:
    """The project's virtualenv interpreter, or this one when there is none."""
    candidate = REPO / ".venv" / "bin" / "python"
    return str(candidate) if candidate.exists() else sys.executable
