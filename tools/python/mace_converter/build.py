"""The Bazel side of `build`: libmace (static, and shared with linkshared: 1)
and mace_run for each target ABI, cross compiled for ARM; with `java: 1` also
the Java API (mace.jar and libmace_jni.so)."""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from mace_converter import kernel_families, op_registry
from mace_converter.config import DeploymentConfig
from mace_converter.progress import REPO, UserError, run_command, step

ABI_BAZEL_FLAGS = {
    "host": [],
    "arm64-v8a": ["--config=aarch64"],
    "armeabi-v7a": ["--config=armhf"],
}
# What each cross ABI needs on the build machine, and where to get it.
_CROSS_NEEDS = {
    "arm64-v8a": ("aarch64-linux-gnu-g++", "g++-aarch64-linux-gnu and qemu-user "
                                           "(tools/bootstrap.sh installs them)"),
    "armeabi-v7a": ("arm-linux-gnueabihf-g++", "g++-arm-linux-gnueabihf and qemu-user"),
}
MACE_RUN = "//mace/tools:mace_run"
# The Hexagon DSP image for runtime: dsp (built with clang --target=hexagon;
# it runs under qemu-hexagon, started by the engine).
DSP_IMAGE = "//mace/dsp:dsp_runtime"
JNI_LIBRARY = "//java:libmace_jni.so"
JAVA_JAR = "//java:mace_jar"
_QUIET = ("Loading:", "Analyzing:", "INFO: Build option", "INFO: Invocation ID",
          "INFO: Elapsed time", "INFO: Streaming build results", "INFO: Reading ")


@dataclass
class AbiOutputs:
    """Files Bazel built for one ABI (absolute paths into bazel-out)."""
    abi: str
    static_library: Path
    link_flags: str
    mace_run: Path
    shared_library: Optional[Path] = None
    dsp_image: Optional[Path] = None
    jni_library: Optional[Path] = None
    java_jar: Optional[Path] = None


def cpu_only(config: DeploymentConfig) -> bool:
    """Every model runs on the CPU: the library leaves out the OpenCL and
    Hexagon runtimes."""
    return all(model.runtime == "cpu" for model in config.models.values())


def memory_define_flags(config: DeploymentConfig) -> list[str]:
    """A model-specific library links the default memory strategy (optimal)
    and the greedy ones it starts from, and a CPU-only one no planner of GPU
    images (mace/core/memory/planner.h)."""
    flags = ["--define=mace_memory_strategies=default"]
    if cpu_only(config):
        flags.append("--define=mace_gpu_images=off")
    return flags


def library_package(config: DeploymentConfig) -> str:
    """The Bazel package of the deployment's libraries and mace_run
    (mace/codegen/deploy.bzl): its own ops (op_registry.py) with
    model_specific_library: 1, else every op, with the CPU runtime only when
    every model runs on the CPU."""
    if config.model_specific_library:
        return op_registry.REGISTRY_PACKAGE
    return "//mace/codegen/cpu" if cpu_only(config) else "//mace/codegen"


def library_target(config: DeploymentConfig) -> str:
    name = "libmace_code" if config.build_type == "code" else "libmace"
    return f"{library_package(config)}:{name}"


def mace_run_target(config: DeploymentConfig) -> str:
    package = library_package(config)
    return MACE_RUN if package == "//mace/codegen" else f"{package}:mace_run"


def check_dsp_toolchain(config: DeploymentConfig) -> None:
    """runtime: dsp needs clang's Hexagon target and ld.lld to build the DSP
    image, and qemu-hexagon to run it."""
    if not needs_dsp(config):
        return
    missing = [tool for tool in ("clang-14", "ld.lld-14", "qemu-hexagon")
               if shutil.which(tool) is None]
    if missing:
        raise UserError(f"runtime dsp needs {', '.join(missing)}, which is not installed; "
                        "install the Debian packages clang, lld and qemu-user "
                        "(tools/bootstrap.sh installs them)")


def check_toolchain(abi: str) -> None:
    if abi in _CROSS_NEEDS:
        compiler, packages = _CROSS_NEEDS[abi]
        if shutil.which(compiler) is None:
            raise UserError(f"target ABI {abi} needs the cross compiler {compiler}, which is "
                            f"not installed; install {packages}")


def bazel_build(config: DeploymentConfig, abi: str) -> AbiOutputs:
    check_toolchain(abi)
    library = library_target(config)
    targets = {"static": library, "flags": library + "_link_flags",
               "run": mace_run_target(config)}
    if config.linkshared:
        targets["shared"] = library + ".so"
    if needs_dsp(config):
        targets["dsp"] = DSP_IMAGE
    # Only on request (java: 1, proto mode): libmace_jni.so carries a whole
    # engine of its own, megabytes an app without Java does not need.
    if config.java:
        targets["jni"] = JNI_LIBRARY
        targets["jar"] = JAVA_JAR
    flags = list(ABI_BAZEL_FLAGS[abi])
    if config.model_specific_library:
        # Only the CPU kernel families the models run (kernel_families.py).
        linked = kernel_families.for_abi(kernel_families.read(op_registry.REGISTRY_DIR), abi)
        flags += kernel_families.define_flags(linked) + memory_define_flags(config)
    what = "libmace (with models as code)" if config.build_type == "code" else "libmace"
    what += ", CPU only" if cpu_only(config) else ""
    if config.model_specific_library:
        families = sorted(linked - set(kernel_families.VARIANTS))
        what += f", the models' ops and CPU kernels ({', '.join(families)})"
        unused = [v for v in kernel_families.VARIANTS if v not in linked]
        if unused:
            what += f" without the NEON variants {', '.join(unused)}"
    what += " + libmace.so" if config.linkshared else ""
    what += " + the Java API" if "jni" in targets else ""
    what += " + the DSP image" if "dsp" in targets else ""
    with step(f"bazel build {what} + mace_run for {abi}"):
        run_command(["bazel", "build", "--color=no", "--curses=no",
                     "--show_progress_rate_limit=20", *flags, *targets.values()],
                    what=f"bazel build for {abi}", cwd=REPO, stream=True, quiet_prefixes=_QUIET)
        files = output_files(flags, list(targets.values()))
    optional = {key: files[targets[key]] if key in targets else None
                for key in ("shared", "jni", "jar", "dsp")}
    return AbiOutputs(abi=abi, static_library=files[targets["static"]],
                      link_flags=files[targets["flags"]].read_text().strip(),
                      mace_run=files[targets["run"]], shared_library=optional["shared"],
                      jni_library=optional["jni"], java_jar=optional["jar"],
                      dsp_image=optional["dsp"])


def needs_dsp(config: DeploymentConfig) -> bool:
    return any(model.runtime == "dsp" for model in config.models.values())


def output_files(flags: list[str], targets: list[str]) -> dict[str, Path]:
    """The single output file of each target, as built with `flags`."""
    expression = 'str(target.label) + "\\t" + " ".join([f.path for f in target.files.to_list()])'
    result = run_command(["bazel", "cquery", "--color=no", "--curses=no", *flags,
                          "--output=starlark", f"--starlark:expr={expression}",
                          " + ".join(targets)], what="bazel cquery", cwd=REPO)
    root = Path(run_command(["bazel", "info", "--color=no", *flags, "execution_root"],
                            what="bazel info", cwd=REPO).stdout.strip())
    files: dict[str, Path] = {}
    for line in result.stdout.splitlines():
        if "\t" not in line:
            continue
        label, paths = line.split("\t", 1)
        label = label.lstrip("@")
        if label in targets and paths:
            files[label] = root / paths.split()[0]
    missing = [target for target in targets if target not in files or not files[target].exists()]
    if missing:
        raise UserError(f"bazel built no file for {', '.join(missing)}")
    return files
