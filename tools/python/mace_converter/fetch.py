"""Finds the files a deployment file names: local paths, URLs (downloaded
once into build/downloads/) and model zoo files (generated on demand), each
checked against its SHA-256 checksum.

Relative paths are relative to the repository root, where converter.py runs.
A location is a path or an http, https or file URL (a file URL names a
regular file); files.py bounds what is read. A download is written with
owner-only permissions (a file URL's copy keeps at most the original's owner
bits) and is deleted when it fails or its checksum is wrong.
A missing file under build/zoo/ is produced by the model zoo generator
(tools/python/zoo/make_zoo.py --out build/zoo --only <name>) first.
"""
from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import stat
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Optional

from mace_converter import files
from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.progress import (REPO, UserError, build_root, run_command, shown, step,
                                     venv_python)

ZOO_DIR = REPO / "build" / "zoo"
ZOO_SCRIPT = REPO / "tools" / "python" / "zoo" / "make_zoo.py"
URL_SCHEMES = ("http", "https", "file")
_ANY_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://.*", re.DOTALL)
# A download keeps its URL's file name when it is a plain one.
_FILE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
DOWNLOAD_TIMEOUT_S = 60

_hash_cache: dict[tuple[str, int, int], str] = {}


def sha256_of(path: Path) -> str:
    info = path.stat()
    key = (str(files.resolve(path)), info.st_size, info.st_mtime_ns)
    if key not in _hash_cache:
        digest = hashlib.sha256()
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        _hash_cache[key] = digest.hexdigest()
    return _hash_cache[key]


def is_url(text: str) -> bool:
    """Whether `text` is written as a URL (of any scheme: fetch refuses the
    ones it does not download)."""
    return bool(_ANY_URL.fullmatch(text))


def local_path(text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else REPO / path


def model_files(config: DeploymentConfig, model: ModelConfig) -> tuple[Path, Optional[Path]]:
    """The model file and (Caffe) weight file, present and checksum-verified."""
    prefix = f"models.{model.name}"
    model_file = fetch(config, f"{prefix}.model_file_path", model.model_file_path,
                       f"{prefix}.model_sha256_checksum", model.model_sha256_checksum)
    weight_file = None
    if model.weight_file_path:
        assert model.weight_sha256_checksum is not None
        weight_file = fetch(config, f"{prefix}.weight_file_path", model.weight_file_path,
                            f"{prefix}.weight_sha256_checksum", model.weight_sha256_checksum)
    return model_file, weight_file


def validation_files(config: DeploymentConfig, model: ModelConfig) -> list[Path]:
    key = f"models.{model.name}.validation_inputs_data"
    return [fetch(config, key, text) for text in model.validation_inputs_data]


def fetch(config: DeploymentConfig, key: str, location: str,
          checksum_key: str = "", checksum: Optional[str] = None) -> Path:
    if is_url(location):
        path = _download(config, key, location, checksum)
    else:
        path = local_path(location)
        try:
            if not os.path.lexists(path) and files.inside(path, ZOO_DIR):
                generate_zoo(path.name)
            files.regular_file(path)
        except files.FileRefused as error:
            raise config.error(key, f"{location}: {error}") from None
    if checksum is not None:
        actual = sha256_of(path)
        if actual != checksum:
            if is_url(location):
                path.unlink(missing_ok=True)
            raise config.error(checksum_key, f"{shown(path)} has SHA-256 {actual}, but the "
                                             f"deployment file expects {checksum}")
    return path


def generate_zoo(file_name: str = "") -> None:
    """Writes the zoo model that has `file_name` (the whole zoo when the
    generator's checksums.json does not list it)."""
    if not ZOO_SCRIPT.exists():
        raise UserError(f"the model zoo generator {shown(ZOO_SCRIPT)} is missing, "
                        f"so {shown(ZOO_DIR)}/ cannot be created")
    command = [venv_python(), str(ZOO_SCRIPT), "--out", str(ZOO_DIR)]
    if file_name in _zoo_files():
        command += ["--only", Path(file_name).stem]
    with step(f"generate {file_name or 'the model zoo'} in {shown(ZOO_DIR)}/"):
        run_command(command, what="the model zoo generator", cwd=REPO, stream=True)


def _zoo_files() -> set[str]:
    try:
        return set(json.loads((ZOO_SCRIPT.parent / "checksums.json").read_text()))
    except (OSError, ValueError):
        return set()


def _download(config: DeploymentConfig, key: str, url: str, checksum: Optional[str]) -> Path:
    try:
        parts = urllib.parse.urlparse(url)
    except ValueError as error:
        raise config.error(key, f"{url}: not a valid URL ({error})") from None
    if parts.scheme.lower() not in URL_SCHEMES:
        raise config.error(key, f"{url}: only http, https and file URLs are downloaded")
    name = Path(urllib.parse.unquote(parts.path)).name
    if not _FILE_NAME.fullmatch(name) or set(name) == {"."}:
        name = "download"
    target = build_root() / "downloads" / hashlib.sha256(url.encode()).hexdigest()[:16] / name
    partial = target.with_name(target.name + ".part")
    try:
        if target.is_file() and (checksum is None or sha256_of(target) == checksum):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.unlink(missing_ok=True)
    except OSError as error:
        raise config.error(key, f"cannot download {url} into {shown(target.parent)}: "
                                f"{error.strerror}") from None
    with step(f"download {url}"):
        try:
            if parts.scheme.lower() == "file":
                _copy_file_url(parts, partial)
            else:
                with _OPENER.open(url, timeout=DOWNLOAD_TIMEOUT_S) as response:
                    files.copy_limited(response, partial)
        except (urllib.error.URLError, OSError, ValueError, files.FileRefused,
                http.client.HTTPException) as error:
            partial.unlink(missing_ok=True)
            reason = getattr(error, "reason", None) or getattr(error, "strerror", None) or error
            raise config.error(key, f"cannot download {url}: {reason}") from None
        partial.replace(target)
    return target


def _copy_file_url(parts: urllib.parse.ParseResult, partial: Path) -> None:
    """Copies the regular file a file URL names, with at most its owner's
    permissions."""
    if parts.netloc not in ("", "localhost"):
        raise files.FileRefused(f"a file URL names a file on this machine, not on "
                                f"'{parts.netloc}'")
    source = files.regular_file(Path(urllib.request.url2pathname(parts.path)))
    with source.open("rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise files.FileRefused("not a regular file")
        files.copy_limited(stream, partial, files.copy_mode(info.st_mode))


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects to http and https URLs only."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102
        if urllib.parse.urlparse(newurl).scheme.lower() not in ("http", "https"):
            fp.close()
            raise urllib.error.URLError(f"redirected to {newurl}, which is not http or https")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_HttpOnlyRedirects)
