"""ncnn for the ARM instruction counts: its source from PyPI, cross-built for
each ABI, a small driver (tools/ncnn/ncnn_infer.cc) and the zoo models
converted by pnnx, so tools/arm_insn_count.sh counts ncnn the way it counts
MACE (same plugin, same qemu CPU, the same (3 runs - 1 run) / 2).

Everything lives under build/ncnn_arm/: the downloaded files in cache/, the
unpacked source, one CMake build per ABI (the library only, with ncnn's
default options but for the layers, -j2), the driver binaries and the
converted models.

PyPI is the only source. The version is the one tools/requirements-bench.txt
pins. `pip download ncnn==VERSION --no-binary :all:` cannot fetch it: ncnn's
setup.py stamps today's date into the version it reports, so pip rejects the
file it asked for. The pinned file's PyPI address and SHA-256 are therefore
listed here and pip fetches that address, which is the same file.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[3]
ROOT = REPO / "build" / "ncnn_arm"
CACHE = ROOT / "cache"
DRIVER_SOURCE = REPO / "tools" / "ncnn" / "ncnn_infer.cc"
REQUIREMENTS = REPO / "tools" / "requirements-bench.txt"
# The pinned ncnn source distribution on PyPI: version -> (address, SHA-256).
NCNN_SDISTS = {
    "1.0.20261020": (
        "https://files.pythonhosted.org/packages/b7/50/"
        "32b5172afe7d3e0dce410b7d8f4a5b7b84b942a0d69affbaedf669de52bc/ncnn-1.0.20261020.tar.gz",
        "ad8cdd63e9755cfa8e23b9b6d9ce46156077d80298a89e7c3ba325ffccfca200"),
}
# ABI -> (build directory, CMake processor, C compiler, C++ compiler, sysroot,
# extra flags). The armv7 flags are those of MACE's armhf build (Debian's armhf
# default has no NEON): hard float, NEON as the baseline. ncnn adds its own
# VFPv4 variant of each layer (-mfpu=neon-vfpv4: fused multiply-add and fp16
# conversion) and picks it at run time when the CPU reports VFPv4, as qemu-arm's
# default CPU does; build_library checks that this option came on.
TOOLCHAINS = {
    "arm64-v8a": ("build-arm64", "aarch64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-g++",
                  "/usr/aarch64-linux-gnu", ""),
    "armeabi-v7a": ("build-armv7", "armv7-a", "arm-linux-gnueabihf-gcc",
                    "arm-linux-gnueabihf-g++", "/usr/arm-linux-gnueabihf",
                    "-march=armv7-a -mfloat-abi=hard -mfpu=neon"),
}
# ncnn's own options that would build more than the library.
LIBRARY_ONLY = ["-DNCNN_BUILD_TOOLS=OFF", "-DNCNN_BUILD_EXAMPLES=OFF",
                "-DNCNN_BUILD_BENCHMARK=OFF", "-DNCNN_BUILD_TESTS=OFF", "-DNCNN_PYTHON=OFF"]
# The layers built: those pnnx writes for the zoo models and those the layers
# create inside themselves (activations, padding, packing, casts), so the build
# takes a fraction of ncnn's full hour. A layer's code is the same as in a full
# build. A model that needs another layer fails to load in ncnn_infer with
# ncnn's "layer ... not exists or registered": add the layer here.
LAYERS = ("BinaryOp", "Cast", "Clip", "Concat", "Convolution", "ConvolutionDepthWise", "Crop",
          "Dropout", "ELU", "Eltwise", "Flatten", "HardSigmoid", "HardSwish", "InnerProduct",
          "Input", "MemoryData", "Mish", "Noop", "Packing", "Padding", "Permute", "Pooling",
          "Reduction", "ReLU", "Reshape", "ShuffleChannel", "Sigmoid", "Slice", "Softmax",
          "Split", "Swish")
# ncnn_infer's modes: every reduced-precision option off, or ncnn's defaults.
MODES = ("fp32", "default")


class NcnnError(Exception):
    """Something the ncnn columns need is missing or failed; the message says what."""


def pinned(package: str, requirements: Path = REQUIREMENTS) -> str:
    """The version `package==VERSION` in the requirements file."""
    pattern = re.compile(rf"^{re.escape(package)}==(\S+)\s*$", re.MULTILINE | re.IGNORECASE)
    match = pattern.search(requirements.read_text())
    if not match:
        raise NcnnError(f"{requirements.name} pins no version of {package}")
    return match.group(1)


def sdist(version: str) -> tuple[str, str]:
    """The PyPI address and SHA-256 of ncnn's source distribution."""
    if version not in NCNN_SDISTS:
        raise NcnnError(f"no PyPI address for the ncnn {version} source distribution: add it "
                        f"to NCNN_SDISTS in {Path(__file__).name} with its SHA-256")
    return NCNN_SDISTS[version]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _run(command: list[str], log: Path | None = None, cwd: Path | None = None,
         timeout: float = 7200) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    output = result.stdout + result.stderr
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(output)
    if result.returncode != 0:
        where = f"; log: {log}" if log else ""
        raise NcnnError(f"`{' '.join(command[:3])} ...` exited with {result.returncode}"
                        f"{where}:\n{output[-1500:]}")
    return output


def pip_download(spec: str, binary: bool) -> None:
    """One file from PyPI into CACHE, by pip, without dependencies."""
    CACHE.mkdir(parents=True, exist_ok=True)
    kind = ["--only-binary", ":all:"] if binary else ["--no-binary", ":all:"]
    _run([sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-deps",
          *kind, "--dest", str(CACHE), spec], log=CACHE / "pip.log", timeout=1800)


def source() -> Path:
    """The unpacked ncnn source tree of the pinned version."""
    version = pinned("ncnn")
    url, checksum = sdist(version)
    archive = CACHE / url.rsplit("/", 1)[1]
    if not archive.exists() or _sha256(archive) != checksum:
        pip_download(url, binary=False)
    if _sha256(archive) != checksum:
        raise NcnnError(f"{archive} does not have the pinned SHA-256 {checksum}")
    tree = ROOT / f"ncnn-{version}"
    if not (tree / "CMakeLists.txt").exists():
        with tarfile.open(archive) as tar:
            tar.extractall(ROOT, filter="data")
    if not (tree / "src" / "net.h").exists():
        raise NcnnError(f"{archive} did not unpack to {tree}")
    return tree


@dataclass
class Library:
    abi: str
    archive: Path  # libncnn.a
    includes: list[Path]


def layer_options(tree: Path, layers: tuple[str, ...] = LAYERS) -> list[str]:
    """CMake options that build `layers` and none of ncnn's other layers."""
    declared = re.findall(r"^ncnn_add_layer\((\w+)", (tree / "src" / "CMakeLists.txt").read_text(),
                          re.MULTILINE)
    missing = sorted(set(layers) - set(declared))
    if missing:
        raise NcnnError(f"this ncnn declares no layer {', '.join(missing)}")
    return [f"-DWITH_LAYER_{name.lower()}={'ON' if name in layers else 'OFF'}"
            for name in declared]


def configure_command(abi: str, tree: Path) -> list[str]:
    """The CMake command that configures the build of `abi`."""
    _, processor, cc, cxx, sysroot, flags = TOOLCHAINS[abi]
    command = ["cmake", str(tree), "-DCMAKE_SYSTEM_NAME=Linux",
               f"-DCMAKE_SYSTEM_PROCESSOR={processor}",
               f"-DCMAKE_C_COMPILER={cc}", f"-DCMAKE_CXX_COMPILER={cxx}",
               f"-DCMAKE_FIND_ROOT_PATH={sysroot}",
               "-DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER",
               "-DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY",
               "-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY", *LIBRARY_ONLY,
               *layer_options(tree)]
    if flags:
        command += [f"-DCMAKE_C_FLAGS={flags}", f"-DCMAKE_CXX_FLAGS={flags}"]
    return command


def cache_value(cache: Path, name: str) -> str | None:
    """A variable's value in a CMakeCache.txt, or None."""
    match = re.search(rf"^{re.escape(name)}:\w+=(.*)$", cache.read_text(), re.MULTILINE)
    return match.group(1) if match else None


def build_library(abi: str, tree: Path, jobs: int = 2) -> Library:
    """ncnn's static library for `abi`: ncnn's default CMake options but for
    the layers (LAYERS). The build directory is kept; it is configured again
    only when the configure command changes."""
    build = ROOT / TOOLCHAINS[abi][0]
    archive = build / "src" / "libncnn.a"
    command = configure_command(abi, tree)
    stamp = build / "configure.args"
    if not (build / "CMakeCache.txt").exists() or not stamp.exists() \
            or stamp.read_text() != "\n".join(command):
        build.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        _run(command, log=build / "configure.log", cwd=build)
        stamp.write_text("\n".join(command))
    if abi == "armeabi-v7a" and cache_value(build / "CMakeCache.txt", "NCNN_VFPV4") != "ON":
        raise NcnnError(f"ncnn's armv7 build has NCNN_VFPV4 off: the compiler cannot build "
                        f"its VFPv4 layers; see {build / 'configure.log'}")
    _run(["cmake", "--build", str(build), "--target", "ncnn", f"-j{jobs}"],
         log=build / "build.log", timeout=4 * 3600)
    if not archive.exists():
        raise NcnnError(f"the ncnn build for {abi} left no {archive}")
    return Library(abi, archive, [tree / "src", build / "src"])


def build_driver(library: Library) -> Path:
    """tools/ncnn/ncnn_infer.cc linked statically against the library."""
    _, _, _, cxx, _, flags = TOOLCHAINS[library.abi]
    out = ROOT / f"ncnn_infer-{library.abi}"
    inputs = [DRIVER_SOURCE, library.archive]
    if out.exists() and all(out.stat().st_mtime >= p.stat().st_mtime for p in inputs):
        return out
    command = [cxx, "-O2", "-std=c++17", *flags.split(), "-fopenmp",
               *[f"-I{p}" for p in library.includes], "-o", str(out), str(DRIVER_SOURCE),
               str(library.archive), "-lpthread"]
    _run(command, log=ROOT / f"ncnn_infer-{library.abi}.log")
    return out


def pnnx_binary() -> Path:
    """The converter binary of the pinned pnnx wheel, unpacked from PyPI's wheel."""
    version = pinned("pnnx")
    binary = ROOT / f"pnnx-{version}" / "pnnx"
    if binary.exists():
        return binary
    wheels = sorted(CACHE.glob(f"pnnx-{version}-*.whl"))
    if not wheels:
        pip_download(f"pnnx=={version}", binary=True)
        wheels = sorted(CACHE.glob(f"pnnx-{version}-*.whl"))
    if not wheels:
        raise NcnnError(f"pip left no pnnx {version} wheel in {CACHE}")
    with zipfile.ZipFile(wheels[0]) as wheel:
        member = next((n for n in wheel.namelist() if n == "pnnx/pnnx"), None)
        if member is None:
            raise NcnnError(f"{wheels[0].name} has no converter binary pnnx/pnnx")
        binary.parent.mkdir(parents=True, exist_ok=True)
        binary.write_bytes(wheel.read(member))
    binary.chmod(0o755)
    return binary


def convert(name: str, onnx: Path, shape: list[int], value_range: tuple[float, float]
            ) -> tuple[Path, Path]:
    """The model's ncnn .param and .bin from pnnx (fp16=0), cached by the ONNX
    file's SHA-256. Splits without sizes are made explicit first (pnnx would
    drop them; see mace_tools.peer_bench.onnx_split)."""
    out = ROOT / "models" / name
    param, weights = out / "model.ncnn.param", out / "model.ncnn.bin"
    stamp = out / "onnx.sha256"
    digest = _sha256(onnx)
    if stamp.exists() and stamp.read_text().strip() == digest and param.exists() \
            and weights.exists():
        return param, weights
    out.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    image = np.random.default_rng(0).uniform(*value_range, size=shape).astype(np.float32)
    np.save(out / "input.npy", image)
    fixed = out / "model.splits.onnx"
    fixed.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO / "tools" / "python"))
    result = subprocess.run([sys.executable, "-m", "mace_tools.peer_bench.onnx_split",
                             str(onnx), str(fixed), str(out / "input.npy")],
                            capture_output=True, text=True, env=env, timeout=600)
    if result.returncode != 0:
        raise NcnnError(f"cannot make {onnx.name}'s Split sizes explicit: "
                        f"{(result.stdout + result.stderr)[-800:]}")
    source_model = fixed if fixed.exists() else onnx
    dims = ",".join(str(d) for d in shape)
    _run([str(pnnx_binary()), str(source_model), f"inputshape=[{dims}]", "fp16=0",
          f"pnnxparam={out / 'model.pnnx.param'}", f"pnnxbin={out / 'model.pnnx.bin'}",
          f"pnnxpy={out / 'model_pnnx.py'}", f"pnnxonnx={out / 'model.pnnx.onnx'}",
          f"ncnnparam={param}", f"ncnnbin={weights}", f"ncnnpy={out / 'model_ncnn.py'}"],
         log=out / "pnnx.log", cwd=out, timeout=1800)
    text = param.read_text() if param.exists() else ""
    for blob in ("in0", "out0"):
        if f" {blob}" not in text:
            raise NcnnError(f"pnnx's {param} has no blob {blob}; log: {out / 'pnnx.log'}")
    stamp.write_text(digest + "\n")
    return param, weights


def driver_arguments(param: Path, weights: Path, shape: list[int], rounds: int,
                     mode: str) -> list[str]:
    """ncnn_infer's arguments after the binary, for an NCHW input of batch 1."""
    if mode not in MODES:
        raise NcnnError(f"unknown ncnn mode '{mode}' (one of {', '.join(MODES)})")
    if len(shape) != 4 or shape[0] != 1:
        raise NcnnError(f"ncnn_infer takes one NCHW image; the input is {shape}")
    return [str(param), str(weights), str(shape[1]), str(shape[2]), str(shape[3]),
            str(rounds), mode]
