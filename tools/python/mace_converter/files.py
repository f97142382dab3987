"""How the converter opens the files a deployment file or a model names.

Every input is a regular file reached through at most MAX_SYMLINKS
symbolic links, no larger than the input limit: 2 GiB by default (the
largest protobuf a model file can be), or MACE_CONVERTER_MAX_INPUT_MB
mebibytes. Problems are FileRefused errors whose one-line message says
what is wrong (the caller names the path and the key); they never quote the
file's contents.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

MAX_SYMLINKS = 40
DEFAULT_LIMIT_MB = 2048
LIMIT_SETTING = "MACE_CONVERTER_MAX_INPUT_MB"
# Downloads and copies are never readable by anyone but the owner.
PRIVATE_MODE = 0o600


class FileRefused(Exception):
    """A path the converter will not read; the message says why."""


def input_limit() -> int:
    """The largest input file in bytes."""
    text = os.environ.get(LIMIT_SETTING, "").strip()
    if not text:
        return DEFAULT_LIMIT_MB << 20
    if not text.isdigit() or int(text) < 1:
        raise FileRefused(f"{LIMIT_SETTING}={text!r} must be a whole number of mebibytes, "
                          "at least 1")
    return int(text) << 20


def resolve(path: Path) -> Path:
    """`path` with every symbolic link followed, counting at most
    MAX_SYMLINKS links; the last component need not exist."""
    path = Path(os.path.abspath(path))
    parts = list(path.parts[1:])
    current = Path(path.anchor)
    hops = 0
    while parts:
        part = parts.pop(0)
        candidate = current / part
        try:
            info = candidate.lstat()
        except FileNotFoundError:
            return Path(os.path.normpath(candidate.joinpath(*parts)))
        except OSError as error:
            raise FileRefused(f"cannot be read: {error.strerror}") from None
        if not stat.S_ISLNK(info.st_mode):
            current = candidate if part != ".." else current.parent
            continue
        hops += 1
        if hops > MAX_SYMLINKS:
            raise FileRefused(f"more than {MAX_SYMLINKS} symbolic links to follow "
                              "(a symlink loop?)")
        try:
            target = Path(os.readlink(candidate))
        except OSError as error:
            raise FileRefused(f"cannot be read: {error.strerror}") from None
        if target.is_absolute():
            current = Path(target.anchor)
            parts = list(target.parts[1:]) + parts
        else:
            parts = list(target.parts) + parts
    return current


def regular_file(path: Path) -> Path:
    """The resolved path of an existing regular file within the input
    limit; FileRefused otherwise."""
    real = resolve(path)
    try:
        info = real.stat()
    except FileNotFoundError:
        raise FileRefused("does not exist") from None
    except OSError as error:
        raise FileRefused(f"cannot be read: {error.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"not a regular file ({_kind(info.st_mode)})")
    limit = input_limit()
    if info.st_size > limit:
        raise FileRefused(f"{info.st_size} bytes, more than the {limit >> 20} MiB input "
                          f"limit (raise it with {LIMIT_SETTING})")
    return real


def inside(path: Path, directory: Path) -> bool:
    """Whether `path`, symbolic links followed, lies within `directory`."""
    try:
        resolve(path).relative_to(resolve(directory))
        return True
    except ValueError:
        return False


def copy_limited(source: BinaryIO, target: Path, mode: int = PRIVATE_MODE) -> int:
    """Writes `source` into a new file `target` with permissions `mode`,
    stopping with FileRefused (and no file left) past the input limit.
    Returns the byte count."""
    limit = input_limit()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
    written = 0
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as out:
            while True:
                block = source.read(1 << 20)
                if not block:
                    break
                written += len(block)
                if written > limit:
                    raise FileRefused(f"more than the {limit >> 20} MiB input limit (raise it "
                                      f"with {LIMIT_SETTING})")
                out.write(block)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return written


def copy_mode(original_mode: int) -> int:
    """Permissions for a copy of a file with `original_mode`: the owner's
    read and write bits it has, and nothing for group or others."""
    return (original_mode & PRIVATE_MODE) or PRIVATE_MODE


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"
