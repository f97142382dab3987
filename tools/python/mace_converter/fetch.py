"""Finds the files a deployment file names: local paths, URLs (downloaded
once into build/downloads/) and model zoo files (generated on demand), each
checked against its SHA-256 checksum.

Relative paths are relative to the repository root, where converter.py runs.
A missing file under build/zoo/ is produced by the model zoo generator
(tools/python/zoo/make_zoo.py --out build/zoo --only <name>) first.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Optional

from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.progress import (REPO, UserError, build_root, run_command, shown, step,
                                     venv_python)

ZOO_DIR = REPO / "build" / "zoo"
ZOO_SCRIPT = REPO / "tools" / "python" / "zoo" / "make_zoo.py"
URL_SCHEMES = ("http", "https", "file")
DOWNLOAD_TIMEOUT_S = 60

_hash_cache: dict[tuple[str, int, int], str] = {}


def sha256_of(path: Path) -> str:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _hash_cache:
        digest = hashlib.sha256()
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        _hash_cache[key] = digest.hexdigest()
    return _hash_cache[key]


def is_url(text: str) -> bool:
    return urllib.parse.urlparse(text).scheme in URL_SCHEMES


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
        if not path.exists() and _inside(path, ZOO_DIR):
            generate_zoo(path.name)
        if not path.is_file():
            raise config.error(key, f"{location}: no such file")
    if checksum is not None:
        actual = sha256_of(path)
        if actual != checksum:
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
    name = Path(urllib.parse.urlparse(url).path).name or "download"
    target = build_root() / "downloads" / hashlib.sha256(url.encode()).hexdigest()[:16] / name
    if target.is_file() and (checksum is None or sha256_of(target) == checksum):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    with step(f"download {url}"):
        try:
            with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response, \
                    partial.open("wb") as out:
                shutil.copyfileobj(response, out, 1 << 20)
        except (urllib.error.URLError, OSError, ValueError) as error:
            partial.unlink(missing_ok=True)
            reason = getattr(error, "reason", None) or error
            raise config.error(key, f"cannot download {url}: {reason}") from None
        partial.replace(target)
    return target


def _inside(path: Path, directory: Path) -> bool:
    try:
        path.resolve().relative_to(directory.resolve())
        return True
    except ValueError:
        return False
