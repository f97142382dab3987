"""Lays out build/<library_name>/ and packs libmace_<library_name>.tar.gz.

The layout, and what each file is for, is in docs/reference/package.md;
keep the two in step.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from mace_converter import aar, codegen
from mace_converter.build import AbiOutputs
from mace_converter.config import ABIS, DeploymentConfig
from mace_converter.conversion import ModelArtifacts, load_artifacts
from mace_converter.progress import REPO, UserError, build_root, say, shell_text, shown, step

PUBLIC_HEADER = REPO / "mace" / "public" / "mace.h"
C_API_HEADER = REPO / "mace" / "public" / "mace_c.h"
# The memory planner is a library of its own that the engine links in, so the
# archive already holds it; these headers let an app call it directly.
PLANNER_HEADERS = tuple(REPO / "mace" / "core" / "memory" / name for name in (
    "plan_checks.h", "planner.h", "simple_arena.h", "status.h", "usage_record.h"))
TARBALL_DIRS = ("include", "lib", "model", "java", "opencl", "dsp")
DSP_IMAGE_NAME = "dsp_runtime.elf"


def library_dir(config: DeploymentConfig) -> Path:
    return build_root() / config.library_name


def static_library_name(config: DeploymentConfig) -> str:
    return f"libmace_{config.library_name}.a"


def tarball_path(config: DeploymentConfig) -> Path:
    return library_dir(config) / f"libmace_{config.library_name}.tar.gz"


def mace_run_path(config: DeploymentConfig, abi: str) -> Path:
    return library_dir(config) / "mace_run" / abi / "mace_run"


def dsp_image_path(config: DeploymentConfig) -> Path:
    return library_dir(config) / "dsp" / DSP_IMAGE_NAME


def install_models(config: DeploymentConfig, artifacts: dict[str, ModelArtifacts]) -> None:
    """Fills model/ with the files an app loads at run time."""
    model_dir = library_dir(config) / "model"
    if model_dir.exists():
        shutil.rmtree(model_dir)
    model_dir.mkdir(parents=True)
    for name, model in sorted(artifacts.items()):
        if config.build_type == "proto":
            _copy(model.pb, model_dir / f"{name}.pb")
        if config.build_type == "proto" or not config.embed_model_data:
            _copy(model.data, model_dir / f"{name}.data")


def install_headers(config: DeploymentConfig) -> None:
    include_dir = library_dir(config) / "include"
    if include_dir.exists():
        shutil.rmtree(include_dir)
    public = include_dir / "mace" / "public"
    public.mkdir(parents=True)
    _copy(PUBLIC_HEADER, public / "mace.h")
    if config.c_api:
        _copy(C_API_HEADER, public / "mace_c.h")
    if config.build_type == "code":
        _copy(codegen.FACTORY_HEADER, public / codegen.FACTORY_HEADER.name)
    memory = include_dir / "mace" / "core" / "memory"
    memory.mkdir(parents=True)
    for header in PLANNER_HEADERS:
        _copy(header, memory / header.name)


def install_abi(config: DeploymentConfig, outputs: AbiOutputs) -> None:
    root = library_dir(config)
    lib_dir = root / "lib" / outputs.abi
    if lib_dir.exists():
        shutil.rmtree(lib_dir)
    lib_dir.mkdir(parents=True)
    _copy(outputs.static_library, lib_dir / static_library_name(config))
    if outputs.shared_library is not None:
        _copy(outputs.shared_library, lib_dir / "libmace.so")
    (lib_dir / "link_flags.txt").write_text(outputs.link_flags + "\n")
    install_java(config, outputs)
    runner = mace_run_path(config, outputs.abi)
    runner.parent.mkdir(parents=True, exist_ok=True)
    _copy(outputs.mace_run, runner)
    # One DSP image serves every ABI: it runs on the DSP, not the CPU.
    image = dsp_image_path(config)
    if outputs.dsp_image is not None:
        image.parent.mkdir(parents=True, exist_ok=True)
        _copy(outputs.dsp_image, image)
    elif image.parent.exists():
        shutil.rmtree(image.parent)
    # ABIs no longer listed in the deployment file leave nothing behind.
    for stale in ABIS:
        if stale not in config.target_abis:
            for directory in (root / "lib" / stale, root / "mace_run" / stale,
                              root / "opencl" / stale, root / "java" / "jniLibs" / stale):
                if directory.exists():
                    shutil.rmtree(directory)


def install_java(config: DeploymentConfig, outputs: AbiOutputs) -> None:
    """With `java: 1`: java/mace.jar and java/jniLibs/<abi>/libmace_jni.so,
    laid out as an Android app's src/main/jniLibs (see docs/how-to/bindings.md).
    Without it, a java/ left by an earlier build is removed."""
    java_dir = library_dir(config) / "java"
    if outputs.jni_library is None or outputs.java_jar is None:
        if java_dir.exists():
            shutil.rmtree(java_dir)
        return
    abi_dir = java_dir / "jniLibs" / outputs.abi
    abi_dir.mkdir(parents=True, exist_ok=True)
    _copy(outputs.jni_library, abi_dir / "libmace_jni.so")
    _copy(outputs.java_jar, java_dir / "mace.jar")
    stale = aar.aar_path(java_dir, config)
    if stale.exists():
        stale.unlink()


def pack_aar(config: DeploymentConfig) -> None:
    """With `android_aar: 1`, after every ABI is installed: the Android
    Archive beside mace.jar (aar.py)."""
    aar.make_aar(config, library_dir(config) / "java")


def make_tarball(config: DeploymentConfig) -> Path:
    """A reproducible tarball: sorted entries, no owners, fixed times."""
    root = library_dir(config)
    target = tarball_path(config)
    with step(f"package {shown(target)}"):
        partial = target.with_name(target.name + ".part")
        with tarfile.open(partial, "w:gz", compresslevel=1) as tar:
            for top in TARBALL_DIRS:
                base = root / top
                if not base.exists():
                    continue
                for path in [base, *sorted(base.rglob("*"))]:
                    info = tar.gettarinfo(str(path), arcname=str(path.relative_to(root)))
                    info.uid = info.gid = 0
                    info.uname = info.gname = ""
                    info.mtime = 0
                    info.mode = 0o755 if path.is_dir() or info.mode & 0o111 else 0o644
                    if path.is_file():
                        with path.open("rb") as stream:
                            tar.addfile(info, stream)
                    else:
                        tar.addfile(info)
        partial.replace(target)
        say(f"    {target.stat().st_size / 2**20:.2f} MiB")
    return target


# ---- OpenCL binaries and tuned parameters (target_socs) -----------------------

_OPENCL_DEVICE = re.compile(r"OpenCL device: (.*) \((?:GPU|CPU|accelerator|other)\) on platform")
_GPU_RUNTIMES = ("gpu", "cpu+gpu")


def opencl_dir(config: DeploymentConfig, abi: str) -> Path:
    return library_dir(config) / "opencl" / abi


def soc_name(device: str) -> str:
    """An OpenCL device name as a file-name part: "Adreno (TM) 640" -> "Adreno_TM_640"."""
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", device).strip("_") or "unknown"


def opencl_files(config: DeploymentConfig, abi: str, device: str, soc: str) -> tuple[Path, Path]:
    """The program binary and the tuned-parameter file for one device and SoC."""
    base = opencl_dir(config, abi)
    return (base / f"{config.library_name}_compiled_opencl_kernel.{device}.{soc}.bin",
            base / f"{config.library_name}_tuned_opencl_parameter.{device}.{soc}.bin")


def opencl_run_flags(config: DeploymentConfig, abi: str) -> list[str]:
    """mace_run flags for the packed binaries and tuned parameters of `abi`, if any.
    The engine skips files built for another device, so all binaries are
    offered; of the parameter files, the one beside the first binary."""
    base = opencl_dir(config, abi)
    binaries = sorted(base.glob(f"{config.library_name}_compiled_opencl_kernel.*.bin"))
    if not binaries:
        return []
    flags = ["--opencl_binary_file=" + ",".join(str(path) for path in binaries)]
    suffix = binaries[0].name.split("_compiled_opencl_kernel.", 1)[1]
    parameters = base / f"{config.library_name}_tuned_opencl_parameter.{suffix}"
    if parameters.exists():
        flags.append(f"--opencl_parameter_file={parameters}")
    return flags


def tune_opencl(config: DeploymentConfig, abi: str, runner: Path) -> None:
    """With target_socs: runs each GPU model on this machine's OpenCL device
    with tuning on, then packs the program binary and the tuned parameters
    under opencl/<abi>/ when the device is one of target_socs ("all" takes
    any). Only the host ABI has a device to tune on."""
    models = [m for m in config.models.values() if m.runtime in _GPU_RUNTIMES]
    if not config.target_socs or not models:
        return
    if abi != "host":
        say(f"note: target_socs: no OpenCL device to tune on for {abi} (it runs under "
            "qemu); its library is generic")
        return
    with step(f"tune the OpenCL kernels of {', '.join(m.name for m in models)} ({abi})"), \
            tempfile.TemporaryDirectory() as scratch:
        binary, parameters = Path(scratch) / "program.bin", Path(scratch) / "tuned.bin"
        device = ""
        for model in models:
            artifacts = load_artifacts(config, model)
            command = [str(runner), f"--model_file={artifacts.pb}",
                       f"--model_data_file={artifacts.data}", "--device=GPU",
                       "--opencl_device_fallback", f"--gpu_data_type={model.data_type}",
                       f"--opencl_cache_file={binary}", f"--opencl_parameter_file={parameters}",
                       "--tune"]
            say(f"    $ {shell_text(command)}")
            result = subprocess.run(command, text=True, capture_output=True)
            if result.returncode != 0:
                lines = (result.stderr.strip() or result.stdout.strip()).splitlines()
                raise UserError(f"tuning {model.name} on the GPU failed:\n" +
                                "\n".join(lines[-20:]))
            found = _OPENCL_DEVICE.search(result.stderr)
            device = found.group(1) if found else device
        soc = soc_name(device)
        wanted = [soc_name(s) for s in config.target_socs]
        if "all" not in config.target_socs and soc not in wanted:
            say(f"note: this machine's OpenCL device is '{device}' ({soc}), not one of "
                f"target_socs ({', '.join(config.target_socs)}); nothing packed")
            return
        if not binary.exists() or not parameters.exists():
            raise UserError("tuning wrote no program binary or tuned-parameter file")
        base = opencl_dir(config, abi)
        if base.exists():
            shutil.rmtree(base)
        base.mkdir(parents=True)
        binary_target, parameter_target = opencl_files(config, abi, abi, soc)
        _copy(binary, binary_target)
        _copy(parameters, parameter_target)
        say(f"    {shown(binary_target)}\n    {shown(parameter_target)}")


def _copy(source: Path, target: Path) -> None:
    shutil.copyfile(source, target)
    shutil.copymode(source, target)
    target.chmod(target.stat().st_mode | 0o200)
