"""Runs one engine process and measures its peak resident set (VmHWM).

The peak is read from the child's own /proc/<pid>/status while it runs. The
rusage that wait4 returns is no good here: exec records the high-water mark
of the memory it replaces, and a child forked from this (large) Python
process starts with this process's, so every engine would seem to need at
least as much memory as the benchmark itself. VmHWM belongs to the memory map
exec created, and it only grows, so the last reading before exit is the peak
unless the process grew in its final few milliseconds. The Python workers
also report their VmHWM themselves just before they exit."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

POLL_S = 0.02


@dataclass
class ChildResult:
    returncode: int
    stdout: str
    stderr: str
    peak_rss_kib: int          # 0 when the child ended before the first reading
    wall_s: float
    timed_out: bool = False

    def last_line(self) -> str:
        """The child's last words, for a one-line error."""
        if self.timed_out:
            return "timed out"
        for text in (self.stderr, self.stdout):
            lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
            if lines:
                return lines[-1]
        if self.returncode < 0:
            return f"killed by signal {-self.returncode}"
        return f"exit code {self.returncode}"


def peak_rss_kib(pid: int) -> int:
    """VmHWM of a live process, in KiB (0 once it has exited)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def run_child(command: Sequence[str], *, cwd: Optional[Path] = None,
              env: Optional[dict[str, str]] = None,
              timeout: Optional[float] = None) -> ChildResult:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        process = subprocess.Popen(list(command), cwd=cwd, env=env, stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        peak, timed_out = 0, False
        try:
            while True:
                pid, status, _ = os.wait4(process.pid, os.WNOHANG)
                if pid:
                    break
                peak = max(peak, peak_rss_kib(process.pid))
                if timeout is not None and not timed_out and time.monotonic() - start > timeout:
                    timed_out = True
                    _kill_group(process.pid)
                time.sleep(POLL_S)
        except BaseException:
            _kill_group(process.pid)
            process.wait()
            raise
        # The child is reaped; tell Popen so it does not wait for it again.
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return ChildResult(returncode=process.returncode, stdout=out.read(), stderr=err.read(),
                           peak_rss_kib=peak, wall_s=wall, timed_out=timed_out)


def _kill_group(pid: int) -> None:
    """The child leads its own session, so this ends it and its helpers only."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def quantizer_main(argv: Sequence[str], count: int, usage: str, quantize: Callable[..., None],
                   what: str) -> int:
    """The entry point of a quantizer child process (int8, dynamic):
    `quantize` with the `count` arguments as paths and strings, its own
    errors printed in one line as `error: <what>: ...`; the usage line and
    2 when the arguments do not fit."""
    if len(argv) != count:
        print(usage, file=sys.stderr)
        return 2
    try:
        quantize(*argv)
    except Exception as error:   # the quantizer's own errors, in one line
        print(f"error: {what}: {' '.join(str(error).split())}", file=sys.stderr)
        return 1
    return 0
