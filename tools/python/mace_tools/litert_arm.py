"""LiteRT (ai-edge-litert: TFLite with its default XNNPACK delegate) on arm64
for tools/arm_insn_count.sh, which counts it as the `litert` kernel set.

LiteRT ships as Python wheels only, so it runs in an arm64 Python under
qemu-aarch64. The first use makes that Python's root under
build/litert_arm/sysroot: Debian bookworm's arm64 python3.11 packages
(`apt-get download`, then `dpkg -x`; apt must know the arm64 architecture,
which tools/bootstrap.sh adds) and PyPI's aarch64 wheels of ai-edge-litert and
numpy at the versions tools/requirements.txt pins (`pip download`, unpacked
into the root's dist-packages). Later runs reuse it while the pins match.

The models are the float32 .tflite files tools/peer_bench.py makes (onnx2tf
on a constant-folded copy of the zoo's ONNX file), cached in its work
directory, build/peer_bench; its drawn inputs are fed in the channels-last
layout onnx2tf gives them.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[3]
ROOT = REPO / "build" / "litert_arm"
SYSROOT = ROOT / "sysroot"
PYTHON = Path("usr/bin/python3.11")
DIST_PACKAGES = Path("usr/lib/python3/dist-packages")
GUEST_SCRIPT = REPO / "tools" / "qemu" / "litert_invoke.py"
REQUIREMENTS = REPO / "tools" / "requirements.txt"
WHEELS = ("ai-edge-litert", "numpy")
# ai-edge-litert's aarch64 wheels are tagged manylinux_2_27, numpy's 2014.
WHEEL_PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_27_aarch64", "manylinux_2_28_aarch64")
# Debian bookworm's arm64 packages the interpreter, numpy and LiteRT load.
DEBIAN_PACKAGES = {
    "python3.11-minimal": "3.11.2-6+deb12u9",
    "libpython3.11-minimal": "3.11.2-6+deb12u9",
    "libpython3.11-stdlib": "3.11.2-6+deb12u9",
    "libc6": "2.36-9+deb12u14",
    "libgcc-s1": "12.2.0-14+deb12u1",
    "libstdc++6": "12.2.0-14+deb12u1",
    "zlib1g": "1:1.2.13.dfsg-1",
    "libexpat1": "2.5.0-1+deb12u5",
    "libffi8": "3.4.4-1",
    "libbz2-1.0": "1.0.8-5+b1",
    "liblzma5": "5.4.1-1+deb12u2",
    "libssl3": "3.0.22-1~deb12u2",
}
COMMANDS = ("apt-get", "dpkg", "qemu-aarch64")
# qemu's default CPU, less SME: with it (512-bit streaming vectors by
# default) XNNPACK runs its matrix products as SME outer products, which the
# other kernel sets do not use and few phones have (MobileNet v2: 39.0 M
# instructions per inference with SME, 113.5 M without).
QEMU_CPU = "max,sme=off"
# Under qemu-user /proc/cpuinfo and the CPU counts in /sys describe the host;
# XNNPACK's CPU detection (cpuinfo) crashes on an x86 /proc/cpuinfo. qemu
# opens a path under its -L root before the host's, so these describe one
# arm64 core whose microarchitecture cpuinfo cannot name (XNNPACK then picks
# its kernels by the CPU features qemu reports alone). Cache sizes and
# topology it still reads from the host's /sys.
FAKE_FILES = {
    "proc/cpuinfo": "processor\t: 0\nBogoMIPS\t: 100.00\nFeatures\t: fp asimd\n"
                    "CPU implementer\t: 0x00\nCPU architecture: 8\nCPU variant\t: 0x0\n"
                    "CPU part\t: 0x051\nCPU revision\t: 0\n\n",
    "sys/devices/system/cpu/possible": "0\n",
    "sys/devices/system/cpu/present": "0\n",
}
STAMP = "pins.txt"


class LiteRTError(Exception):
    """The sysroot or a model cannot be made; the message says why."""


def wheel_pins(requirements: str) -> dict[str, str]:
    """The pinned versions of WHEELS in a requirements file's text."""
    pins = {}
    for line in requirements.splitlines():
        match = re.match(r"^\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s;#]+)", line)
        if match and match.group(1).lower().replace("_", "-") in WHEELS:
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    missing = [name for name in WHEELS if name not in pins]
    if missing:
        raise LiteRTError(f"{REQUIREMENTS.relative_to(REPO)} pins no version of "
                          f"{', '.join(missing)}")
    return pins


def refusal(found: Callable[[str], Optional[str]], foreign_architectures: str) -> str:
    """Why the sysroot cannot be made here ('' when it can): a missing
    command, or apt without the arm64 architecture."""
    missing = [command for command in COMMANDS if found(command) is None]
    if missing:
        return f"no {', '.join(missing)} on this machine (Debian's apt, dpkg and qemu-user)"
    if "arm64" not in foreign_architectures.split():
        return ("apt does not know the arm64 architecture (`dpkg --add-architecture arm64 && "
                "apt-get update`, as tools/bootstrap.sh does)")
    return ""


def pins_text(pins: dict[str, str]) -> str:
    """What the sysroot is made of, as its stamp records it."""
    lines = [f"{name}:arm64={version}" for name, version in DEBIAN_PACKAGES.items()]
    lines += [f"{name}=={pins[name]}" for name in WHEELS]
    lines += [f"{path}: {text!r}" for path, text in FAKE_FILES.items()]
    return "\n".join(lines) + "\n"


def sysroot(log: Callable[[str], None]) -> Path:
    """The arm64 Python's root, made on first use; raises LiteRTError."""
    pins = wheel_pins(REQUIREMENTS.read_text())
    stamp = SYSROOT / STAMP
    if stamp.is_file() and stamp.read_text() == pins_text(pins) and (SYSROOT / PYTHON).is_file():
        return SYSROOT
    architectures = ""
    if shutil.which("dpkg"):
        architectures = subprocess.run(["dpkg", "--print-foreign-architectures"],
                                       capture_output=True, text=True).stdout
    problem = refusal(shutil.which, architectures)
    if problem:
        raise LiteRTError(f"cannot make the arm64 Python for LiteRT: {problem}")
    log(f"making the arm64 Python for LiteRT in {SYSROOT.relative_to(REPO)} (once)")
    debs = ROOT / "debs"
    wheels = ROOT / "wheels"
    debs.mkdir(parents=True, exist_ok=True)
    wanted = [f"{name}:arm64={version}" for name, version in DEBIAN_PACKAGES.items()]
    _run(["apt-get", "download", *wanted], debs, "apt-get download")
    _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
          "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311",
          *[f"--platform={platform}" for platform in WHEEL_PLATFORMS], "-d", str(wheels),
          *[f"{name}=={pins[name]}" for name in WHEELS]], ROOT, "pip download")
    shutil.rmtree(SYSROOT, ignore_errors=True)
    for name, version in DEBIAN_PACKAGES.items():
        # apt writes an epoch's colon as %3a in the file name.
        files = sorted(debs.glob(f"{name}_{version.replace(':', '%3a')}_arm64.deb"))
        if not files:
            raise LiteRTError(f"apt-get download left no {name} {version} in {debs}")
        _run(["dpkg", "-x", str(files[0]), str(SYSROOT)], ROOT, f"dpkg -x {files[0].name}")
    for name in WHEELS:
        files = sorted(wheels.glob(f"{name.replace('-', '_')}-{pins[name]}-*.whl"))
        if not files:
            raise LiteRTError(f"pip download left no {name} {pins[name]} wheel in {wheels}")
        with zipfile.ZipFile(files[0]) as wheel:
            wheel.extractall(SYSROOT / DIST_PACKAGES)
    for path, text in FAKE_FILES.items():
        (SYSROOT / path).parent.mkdir(parents=True, exist_ok=True)
        (SYSROOT / path).write_text(text)
    # Byte-compiled once here (the host's Python is 3.11 too), so that no
    # counted run compiles or writes a module.
    _run([sys.executable, "-m", "compileall", "-q", str(SYSROOT / "usr/lib/python3.11"),
          str(SYSROOT / DIST_PACKAGES)], ROOT, "compileall")
    check = subprocess.run(["qemu-aarch64", "-cpu", QEMU_CPU, "-L", str(SYSROOT),
                            str(SYSROOT / PYTHON), "-s", "-B", "-c",
                            "import numpy, ai_edge_litert.interpreter"],
                           capture_output=True, text=True, timeout=600)
    if check.returncode != 0:
        raise LiteRTError(f"the arm64 Python in {SYSROOT} cannot import numpy and LiteRT:\n"
                          f"{check.stderr[-2000:]}")
    stamp.write_text(pins_text(pins))
    return SYSROOT


def guest_command(root: Path, model: Path, feeds: Path, invokes: int) -> list[str]:
    """The arm64 Python running `invokes` inferences (qemu's arguments are
    the caller's): no user site, no bytecode written."""
    return [str(root / PYTHON), "-s", "-B", str(GUEST_SCRIPT), str(model), str(feeds),
            str(invokes)]


# Set for each counted run: Python's hashes are seeded at random otherwise,
# and two runs that differ in more than their invokes would not cancel out.
GUEST_ENV = {"PYTHONHASHSEED": "0"}


@dataclass
class LiteRTModel:
    tflite: Path
    feeds: Path


def model(name: str, log: Callable[[str], None]) -> LiteRTModel:
    """peer_bench's .tflite of the zoo model (converted on first use) and its
    inputs as the interpreter takes them; raises LiteRTError."""
    from mace_converter.progress import UserError
    from mace_tools.peer_bench import prepare
    from mace_tools.peer_bench.options import ALIASES, DEFAULT_SEED, Options
    peer_name = ALIASES.get(name, name)
    work = REPO / "build" / "peer_bench"
    options = Options(models=[peer_name], engines=["litert"], threads=[1], rounds=1, repeats=1,
                      seed=DEFAULT_SEED, report=work / "unused.md", skip_mace_build=True,
                      op_profile=False, cpu_affinity_policy=0, timeout=1800, work_dir=work)
    try:
        prepared = prepare.prepare(peer_name, options, lambda text: log(text.strip()))
    except UserError as error:
        raise LiteRTError(str(error)) from error
    if "litert" in prepared.errors or prepared.litert is None:
        raise LiteRTError(prepared.errors.get("litert", "no .tflite was made"))
    feeds = prepared.directory / "litert" / "arm_feeds.npz"
    write_feeds(prepared.litert, [(i.name, i.file) for i in prepared.inputs], feeds)
    return LiteRTModel(prepared.litert, feeds)


def write_feeds(tflite: Path, inputs: list[tuple[str, Path]], out: Path) -> None:
    """The inputs (in the ONNX graph's order) as litert_invoke.py reads them:
    keyed by tensor index, in the interpreter's layout and type. onnx2tf
    names the inputs inputs_0, inputs_1, ... in the graph's order."""
    import numpy as np
    from ai_edge_litert.interpreter import Interpreter

    from mace_tools.peer_bench import litert
    details = Interpreter(model_path=str(tflite)).get_input_details()
    details = sorted(details, key=lambda d: litert.input_position(d["name"]))
    if len(details) != len(inputs):
        raise LiteRTError(f"{tflite} has {len(details)} inputs, the model {len(inputs)}")
    arrays = {}
    for detail, (name, path) in zip(details, inputs):
        value = litert.channels_last(np.load(path)).astype(detail["dtype"], copy=False)
        if tuple(value.shape) != tuple(detail["shape"]):
            raise LiteRTError(f"input {name}: {tflite.name} takes {list(detail['shape'])}, the "
                              f"drawn input is {list(value.shape)} channels-last")
        arrays[str(detail["index"])] = value
    np.savez(out, **arrays)


def _run(command: list[str], cwd: Path, what: str) -> None:
    cwd.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise LiteRTError(f"{what} failed ({result.returncode}):\n"
                          f"{(result.stdout + result.stderr)[-2000:]}")
