#!/usr/bin/env bash
# Builds the Python wheel of MACE: the mace module (mace/python/mace) with a
# stripped libmace.so inside it, for the host or for arm64.
#
#   tools/wheel.sh                   build/wheel/mace_engine-*-py3-none-linux_<host arch>.whl
#   tools/wheel.sh --config=aarch64  build/wheel/mace_engine-*-py3-none-linux_aarch64.whl
#
# The packaging tools (tools/requirements-wheel.txt) live in a virtualenv of
# their own, build/wheel/tools-venv. See docs/how-to/python_wheel.md.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"

case "${1:-}" in
  "") flags=() plat="linux_$(uname -m)" strip_tool=strip ;;
  --config=aarch64) flags=(--config=aarch64) plat=linux_aarch64 strip_tool=aarch64-linux-gnu-strip ;;
  *) echo "usage: tools/wheel.sh [--config=aarch64]" >&2; exit 2 ;;
esac

out="${repo}/build/wheel"
bazel build "${flags[@]}" //mace/libmace:libmace.so
library="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)/mace/libmace/libmace.so"

stage="${out}/stage-${plat}"
rm -rf "${stage}"
mkdir -p "${stage}/mace"
cp mace/python/pyproject.toml mace/python/setup.py "${stage}/"
cp mace/python/mace/*.py "${stage}/mace/"
"${strip_tool}" --strip-unneeded -o "${stage}/mace/libmace.so" "${library}"
printf '[bdist_wheel]\nplat_name = %s\n' "${plat}" > "${stage}/setup.cfg"

tools_venv="${out}/tools-venv"
stamp="${tools_venv}/.requirements.sha256"
want="$(sha256sum tools/requirements-wheel.txt | cut -d' ' -f1)"
if [[ ! -x "${tools_venv}/bin/python" || "$(cat "${stamp}" 2>/dev/null)" != "${want}" ]]; then
  python3 -m venv --clear "${tools_venv}"
  "${tools_venv}/bin/pip" install -q --disable-pip-version-check -r tools/requirements-wheel.txt
  echo "${want}" > "${stamp}"
fi
rm -f "${out}"/mace_engine-*-"${plat}".whl
"${tools_venv}/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
  -w "${out}" "${stage}"
ls "${out}"/mace_engine-*-"${plat}".whl
