"""What the report says about the machine and the software under test."""
from __future__ import annotations

import importlib.metadata
import os
import subprocess
from pathlib import Path

from mace_converter.progress import REPO

# Vector extensions that decide which kernels the engines pick on x86-64.
_ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16",
              "amx_tile", "asimd", "asimddp", "fphp")
# What mace_run is built from.
_ENGINE_PATHS = ("mace", "third_party", "WORKSPACE", "BUILD.bazel", ".bazelrc")
# Engine key -> PyPI distributions whose versions the report names.
_DISTRIBUTIONS = {"ort": ["onnxruntime"], "ncnn": ["ncnn", "pnnx"],
                  "ncnn_default": ["ncnn", "pnnx"], "mnn": ["MNN"],
                  "litert": ["ai-edge-litert", "onnx2tf", "tensorflow-cpu"]}


def cpu_model() -> str:
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in text.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    for line in _cpuinfo().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def isa_flags() -> list[str]:
    for line in _cpuinfo().splitlines():
        if line.startswith(("flags", "Features")):
            present = set(line.split(":", 1)[1].split())
            return [flag for flag in _ISA_FLAGS if flag in present]
    return []


def load_average() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (float("nan"),) * 3


def versions(engines: list[str]) -> dict[str, str]:
    found = {"MACE": mace_revision()}
    for engine in engines:
        for name in _DISTRIBUTIONS.get(engine, []):
            try:
                found[name] = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                found[name] = "not installed"
    return found


def mace_revision() -> str:
    """The commit, marked when the engine's sources differ from it. Runs git
    without the optional index lock, so a concurrent commit is never disturbed."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "--no-optional-locks", *args], cwd=REPO,
                              capture_output=True, text=True, check=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", *_ENGINE_PATHS)
    except (OSError, subprocess.CalledProcessError):
        return "unknown revision"
    return commit + (" with uncommitted changes to the engine" if dirty else "")


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
