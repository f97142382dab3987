"""Runs x86 binaries and Python extension modules on an AVX-512 host as if it
had AVX2 and FMA only, so that MACE and the peer engines can be timed with
the kernels they would pick on an AVX2-only host, on the same core and in the
same run.

Without CPUID faulting (absent on most virtual machines) user space cannot
trap cpuid, so the binaries are rewritten instead: every cpuid instruction
(0f a2), found by disassembling the executable sections, becomes int3; nop
(cc 90) in a copy of the file. The preloaded tools/x86/avx2_cap.c answers
each trap with the host's cpuid minus the AVX-512, AVX-VNNI, AVX10 and AMX
bits. Python packages are mirrored into a directory of symbolic links in
which only the rewritten libraries are real files; that directory goes first
on PYTHONPATH.

What this does not change: the core (its FMA units, caches and clock are the
host's) and code that is not rewritten (the C library's string functions,
and numpy where it is not mirrored).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import struct
import subprocess
import sysconfig
from pathlib import Path
from typing import Iterable, NamedTuple, Optional

REPO = Path(__file__).resolve().parents[3]
LIBRARY_SOURCE = REPO / "tools" / "x86" / "avx2_cap.c"
DEFAULT_WORK = REPO / "build" / "avx2_cap"
CPUID = b"\x0f\xa2"
TRAP = b"\xcc\x90"  # int3; nop
SHF_EXECINSTR = 0x4
DISASSEMBLED_CPUID = re.compile(r"^\s*([0-9a-f]+):\s+cpuid\b", re.MULTILINE)
ELF_MAGIC = b"\x7fELF"
# Set in a process's environment, the library prints how many cpuid it
# answered when the process exits.
REPORT_VARIABLE = "AVX2_CAP_REPORT"


class CapError(Exception):
    """A library that would not build or a binary that could not be rewritten."""


class Section(NamedTuple):
    address: int
    offset: int
    size: int


def _run(command: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError:
        raise CapError(f"{command[0]} is not installed (tools/bootstrap.sh installs it)") from None


def build_library(work: Path = DEFAULT_WORK) -> Path:
    """tools/x86/avx2_cap.c as a shared library (rebuilt when the source is newer)."""
    out = work / "libavx2_cap.so"
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.stat().st_mtime < LIBRARY_SOURCE.stat().st_mtime:
        result = _run(["gcc", "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra",
                       "-Werror", "-o", str(out), str(LIBRARY_SOURCE)])
        if result.returncode != 0:
            raise CapError(f"gcc could not build {LIBRARY_SOURCE.name}:\n{result.stderr[-2000:]}")
    return out


def executable_sections(data: bytes) -> list[Section]:
    """The SHF_EXECINSTR sections of a little-endian ELF64 file."""
    if len(data) < 64 or data[:4] != ELF_MAGIC or data[4] != 2 or data[5] != 1:
        raise CapError("not a little-endian 64-bit ELF file")
    section_table, = struct.unpack_from("<Q", data, 0x28)
    entry_size, count = struct.unpack_from("<HH", data, 0x3a)
    if entry_size < 64 or section_table + entry_size * count > len(data):
        raise CapError("the section table lies outside the file")
    sections = []
    for index in range(count):
        base = section_table + index * entry_size
        kind, flags, address, offset, size = struct.unpack_from("<IQQQQ", data, base + 4)
        if flags & SHF_EXECINSTR and kind != 8:  # 8: SHT_NOBITS
            if offset + size > len(data):
                raise CapError(f"section {index} lies outside the file")
            sections.append(Section(address, offset, size))
    return sections


def cpuid_offsets(path: Path, data: Optional[bytes] = None) -> list[int]:
    """File offsets of the cpuid instructions objdump finds in path's
    executable sections. Raises CapError if a reported address is not in a
    section or does not hold 0f a2."""
    data = path.read_bytes() if data is None else data
    sections = executable_sections(data)
    result = _run(["objdump", "-d", "--no-show-raw-insn", "-w", str(path)])
    if result.returncode != 0:
        raise CapError(f"objdump could not disassemble {path}:\n{result.stderr[-1000:]}")
    offsets = []
    for match in DISASSEMBLED_CPUID.finditer(result.stdout):
        address = int(match.group(1), 16)
        section = next((s for s in sections if s.address <= address < s.address + s.size), None)
        if section is None:
            raise CapError(f"{path}: cpuid at {address:#x} is in no executable section")
        offset = section.offset + address - section.address
        if data[offset:offset + 2] != CPUID:
            raise CapError(f"{path}: no cpuid bytes at file offset {offset:#x}")
        offsets.append(offset)
    return offsets


def rewrite(data: bytes, offsets: Iterable[int]) -> bytes:
    patched = bytearray(data)
    for offset in offsets:
        if patched[offset:offset + 2] != CPUID:
            raise CapError(f"no cpuid bytes at file offset {offset:#x}")
        patched[offset:offset + 2] = TRAP
    return bytes(patched)


def source_key(path: Path) -> str:
    """Names one version of a file: its path, size and modification time."""
    stat = path.stat()
    text = f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def capped_copy(source: Path, target: Path) -> int:
    """Writes source to target with its cpuid instructions rewritten; returns
    how many. A target written from the same source (path, size, mtime) is
    kept."""
    stamp = target.with_name(target.name + ".avx2_cap")
    key = source_key(source)
    if target.exists() and stamp.exists():
        recorded_key, _, count = stamp.read_text().partition(" ")
        if recorded_key == key:
            return int(count)
    data = source.read_bytes()
    offsets = cpuid_offsets(source, data)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.exists():
        target.unlink()
    target.write_bytes(rewrite(data, offsets))
    shutil.copymode(source, target)
    stamp.write_text(f"{key} {len(offsets)}")
    return len(offsets)


def _is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) == ELF_MAGIC
    except OSError:
        return False


def _mirror(source: Path, target: Path) -> int:
    """Mirrors a file or directory tree: ELF files rewritten, the rest
    linked. Returns the number of cpuid instructions rewritten."""
    if source.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        return sum(_mirror(child, target / child.name) for child in sorted(source.iterdir())
                   if child.name != "__pycache__")
    if _is_elf(source) and not source.is_symlink():
        return capped_copy(source, target)
    if not target.is_symlink() or os.readlink(target) != str(source):
        if target.is_symlink() or target.exists():
            target.unlink()
        target.symlink_to(source)
    return 0


def site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def mirror_modules(names: Iterable[str], work: Path = DEFAULT_WORK,
                   site: Optional[Path] = None) -> tuple[Path, int]:
    """A directory holding the top-level modules and packages `names` (a
    package directory, or the extension module files called name.*) from
    site, rewritten, with the libraries a wheel vendors beside them
    (NAME.libs, which their RPATHs name relative to themselves); returns it
    and the number of cpuid instructions rewritten. Raises CapError for a
    name site does not have."""
    site = site_packages() if site is None else site
    out = work / "site"
    total = 0
    for name in names:
        found = [site / name] if (site / name).is_dir() else sorted(site.glob(f"{name}.*"))
        if not found:
            raise CapError(f"{site} has no module {name}")
        for path in found:
            total += _mirror(path, out / path.name)
    wanted = {name.lower() for name in names}
    for vendored in sorted(site.glob("*.libs")):
        if vendored.is_dir() and vendored.name[:-len(".libs")].lower() in wanted:
            total += _mirror(vendored, out / vendored.name)
    return out, total


def preload_environment(library: Path, python_path: Optional[Path] = None,
                        env: Optional[dict[str, str]] = None) -> dict[str, str]:
    """env (default os.environ) with the library preloaded and python_path
    first on PYTHONPATH."""
    env = dict(os.environ if env is None else env)
    env["LD_PRELOAD"] = " ".join(p for p in (str(library), env.get("LD_PRELOAD", "")) if p)
    if python_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(python_path), env.get("PYTHONPATH", "")) if p)
    return env
