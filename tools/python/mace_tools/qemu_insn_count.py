"""What tools/arm_insn_count.sh and tools/x86_insn_count.sh share: the qemu
plugin that counts executed guest instructions (tools/qemu/insn_count.c),
running a command under qemu-user with it, the zoo model's MACE files, and
turning two processes' counts into one inference's.

A count is the difference between a process that runs one inference and one
that runs 1 + EXTRA_ROUNDS, over EXTRA_ROUNDS: loading and the first run
drop out."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, NamedTuple, NoReturn

from mace_converter.build import output_files
from mace_converter.config import load_config
from mace_converter.conversion import work_dir
from mace_converter.progress import UserError

REPO = Path(__file__).resolve().parents[3]
BUILD = REPO / "build"
PLUGIN_SOURCE = REPO / "tools" / "qemu" / "insn_count.c"
EXTRA_ROUNDS = 2
INSN_COUNT = re.compile(r"^insn_count: (\d+)$", re.MULTILINE)
CACHE_COUNTS = re.compile(r"^cache_accesses: (\d+) l1d_misses: (\d+) l2_misses: (\d+)$",
                          re.MULTILINE)
INSN_SYMBOL = re.compile(r"^insn_symbol: (\d+) [\d.]+% (.+)$", re.MULTILINE)
TOP_SYMBOLS = 8
# Functions the plugin lists per process: enough that every function one
# inference spends much in is listed by both processes of a pair.
LISTED_SYMBOLS = 60
# What the plugin calls the instructions of functions its table had no room
# for; "[unknown]" is code without a symbol (libc, the loader).
OVERFLOW_SYMBOL = "[table full]"
# "   3  Conv2D   conv_4   0.1234   1.2%   118013952  [1,64,56,56]"
OP_ROW = re.compile(r"^\s*\d+\s+\S+\s+\S+\s+[\d.]+\s+[\d.]+%\s+(\d+)\s+\[", re.MULTILINE)
# Environment variables that change which kernels run or how many threads:
# each count sets its own.
KERNEL_ENVIRONMENT = ("MACE_CPU_KERNELS", "MACE_CPU_BLOCKED_LAYOUT", "OMP_NUM_THREADS")


class CacheCounts(NamedTuple):
    """The plugin's cache model: 64-byte lines accessed, and the lines L1d
    and L2 missed."""
    accesses: int
    l1d_misses: int
    l2_misses: int


class CountError(Exception):
    """A build, conversion or counted run that failed, with what it printed."""


def fail(tool: str, message: str) -> NoReturn:
    print(f"{tool}: error: {message}", file=sys.stderr)
    sys.exit(1)


def run_tool(tool: str, body: Callable[[list[str] | None], int],
             argv: list[str] | None) -> int:
    """body(argv), a CountError reported as `tool: error: ...` with exit status 1."""
    try:
        return body(argv)
    except CountError as error:
        fail(tool, str(error))


def run(command: list[str], env: dict[str, str] | None = None, timeout: float = 3600,
        cwd: Path = REPO) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env,
                            timeout=timeout)
    if result.returncode != 0:
        raise CountError(f"`{' '.join(command)}` exited with {result.returncode}:\n"
                         f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return result.stdout + result.stderr


def build_plugin(out: Path = BUILD / "qemu" / "libinsn_count.so") -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.stat().st_mtime < PLUGIN_SOURCE.stat().st_mtime:
        run(["gcc", "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra",
             "-Werror", "-o", str(out), str(PLUGIN_SOURCE), "-lpthread"])
    return out


def build_mace_run(flags: list[str]) -> Path:
    target = "//mace/tools:mace_run"
    run(["bazel", "build", "--color=no", "--curses=no", *flags, target])
    try:
        return output_files(flags, [target])[target]
    except UserError as error:
        raise CountError(str(error)) from None


def convert(model: str) -> tuple[Path, Path]:
    """The model's .pb and .data, converted from its deployment file."""
    path = REPO / "models" / f"{model}.yml"
    if not path.exists():
        raise CountError(f"no deployment file {path}")
    run([sys.executable, str(REPO / "tools" / "converter.py"), "convert", "--config", str(path)])
    try:
        models = work_dir(load_config(path)) / "models"
    except UserError as error:
        raise CountError(str(error)) from None
    graphs = sorted(models.glob("*.pb"))
    if not graphs:
        raise CountError(f"converting {model} left no .pb in {models}")
    return graphs[0], graphs[0].with_suffix(".data")


def model_macs(host_run: Path, graph: Path, data: Path) -> int:
    text = run([str(host_run), f"--model_file={graph}", f"--model_data_file={data}",
                "--round=1", "--omp_num_threads=1", "--benchmark"])
    return sum(int(m.group(1)) for m in OP_ROW.finditer(text))


def mace_run_command(binary: Path, graph: Path, data: Path, rounds: int,
                     flags: list[str] | None = None) -> list[str]:
    """mace_run on one thread for `rounds` timed runs."""
    return [str(binary), f"--model_file={graph}", f"--model_data_file={data}",
            f"--round={rounds}", "--omp_num_threads=1", *(flags or [])]


def count_under_qemu(qemu: list[str], command: list[str], plugin: Path, env: dict[str, str],
                     symbols: int, what: str, cwd: Path = REPO, expect: str = "",
                     unset: tuple[str, ...] = ()) -> tuple[int, list[tuple[str, int]]]:
    """Instructions `command` executed under `qemu` (the emulator and its
    options, before -plugin), and its top `symbols` functions. `env` is added
    to this process's environment less KERNEL_ENVIRONMENT and `unset`. When
    `expect` is given, the process must print it (a check that the intended
    code ran)."""
    options = [f"symbols={symbols}"] if symbols else []
    text = run_with_plugin(qemu, command, plugin, options, env, what, cwd, expect, unset)
    return parse_count(text), parse_symbols(text)


def count_caches_under_qemu(qemu: list[str], command: list[str], plugin: Path, caches: str,
                            env: dict[str, str], what: str, cwd: Path = REPO,
                            expect: str = "") -> tuple[int, CacheCounts]:
    """Instructions `command` executed under `qemu` and its data accesses
    through the plugin's model of the caches `caches` (its options,
    "l1d=BYTES:WAYS,l2=BYTES:WAYS"), as count_under_qemu runs it."""
    text = run_with_plugin(qemu, command, plugin, caches.split(","), env, what, cwd, expect, ())
    counts = parse_caches(text)
    if counts is None:
        raise CountError(f"the plugin printed no cache counts for {what}")
    return parse_count(text), counts


def run_with_plugin(qemu: list[str], command: list[str], plugin: Path, options: list[str],
                    env: dict[str, str], what: str, cwd: Path, expect: str,
                    unset: tuple[str, ...]) -> str:
    """What `command` printed under `qemu` with the plugin and its `options`;
    it must have printed the instruction count (and `expect`, if given)."""
    full_env = dict(os.environ)
    for name in (*KERNEL_ENVIRONMENT, *unset):
        full_env.pop(name, None)
    full_env.update(env)
    text = run([*qemu, "-d", "plugin", "-plugin", ",".join([str(plugin), *options]), *command],
               env=full_env, cwd=cwd)
    if parse_count(text) is None:
        raise CountError(f"the plugin printed no count for {what}")
    if expect and expect not in text:
        raise CountError(f"{what} did not print '{expect}':\n{text[-2000:]}")
    return text


def parse_count(text: str) -> int | None:
    """The plugin's total from qemu's output, or None."""
    match = INSN_COUNT.search(text)
    return int(match.group(1)) if match else None


def parse_caches(text: str) -> CacheCounts | None:
    """The plugin's cache model counts from qemu's output, or None."""
    match = CACHE_COUNTS.search(text)
    return CacheCounts(*(int(group) for group in match.groups())) if match else None


def parse_symbols(text: str) -> list[tuple[str, int]]:
    """The plugin's per-function lines, as (name, instructions)."""
    return [(m.group(2), int(m.group(1))) for m in INSN_SYMBOL.finditer(text)]


def per_inference_functions(one: list[tuple[str, int]], more: list[tuple[str, int]],
                            extra_rounds: int, per_inference: float,
                            limit: int = TOP_SYMBOLS) -> list[tuple[str, float]]:
    """The `limit` functions with the most instructions per inference, as
    (name, percent of one inference): each function's count in the longer
    process less its count in the shorter, over the extra rounds, so loading
    and the first run drop out as they do from the total. A function the
    shorter process did not list counts there as its smallest listed count,
    the most it can have had."""
    if per_inference <= 0 or not more:
        return []
    shorter = dict(one)
    floor = min(shorter.values()) if len(one) >= LISTED_SYMBOLS else 0
    rows = []
    for name, count in more:
        if name == OVERFLOW_SYMBOL:
            continue
        spent = (count - shorter.get(name, floor)) / extra_rounds
        if spent > 0:
            rows.append((name, 100.0 * spent / per_inference))
    rows.sort(key=lambda row: -row[1])
    return rows[:limit]


ENUM_CAST = re.compile(r"\((?:[\w{} ]+::)+(\w+)\)")


def short_name(symbol: str) -> str:
    """A C++ symbol without its namespaces and parameters, demangled when c++filt
    is there: mace::ops::x86::Foo(int) -> Foo."""
    name = symbol
    if symbol.startswith("_Z") and shutil.which("c++filt"):
        name = subprocess.run(["c++filt", symbol], capture_output=True, text=True).stdout.strip()
    name = name.replace("(anonymous namespace)", "{anonymous}")
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):  # drop the parameter list: the first '(' at depth 0
        if ch in "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0:
            cut = i
            break
    name = name[:cut]
    depth, start = 0, 0
    for i, ch in enumerate(name):  # drop namespaces: after the last '::' at depth 0
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and name.startswith("::", i):
            start = i + 2
    # Enum template arguments demangle as casts: (ns::Enum)1 -> (Enum)1.
    return ENUM_CAST.sub(r"(\1)", name[start:]) or symbol
