#!/usr/bin/env bash
# Unpacks Debian's protobuf source package, the same version as the installed
# protoc and libprotobuf-dev, into /usr/local/src/mace-protobuf. Bazel
# compiles protobuf-lite from it (@protobuf_lite_src, WORKSPACE) so that
# libmace.so and libmace_jni.so carry it as position-independent code with
# hidden symbols: Debian's libprotobuf-lite.a is built as PIE code
# (local-exec TLS relocations) and cannot go into a shared library.
#
# The source comes through apt with a private deb-src list, so the system's
# apt sources are left as they are; apt checks the signatures as usual.
# Safe to re-run: it does nothing when the right version is unpacked.
set -euo pipefail

dest=/usr/local/src/mace-protobuf  # @protobuf_lite_src in WORKSPACE
version="$(dpkg-query -W -f='${Version}' libprotobuf-dev)"
if [[ "$(cat "${dest}/.debian-version" 2>/dev/null)" == "${version}" ]]; then
  exit 0
fi

work="$(mktemp -d)"
chmod 755 "${work}"  # apt downloads as _apt
trap 'rm -rf "${work}"' EXIT
mkdir -p "${work}/lists/partial"
cat > "${work}/sources.list" <<LIST
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian-security bookworm-security main
LIST
apt_options=(-q -o "Dir::Etc::SourceList=${work}/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=${work}/lists")
echo "fetch_protobuf_source: downloading protobuf ${version} source"
apt-get "${apt_options[@]}" update >/dev/null
(cd "${work}" && apt-get "${apt_options[@]}" source --download-only "protobuf=${version}" >/dev/null 2>&1)
dpkg-source -x "${work}"/protobuf_*.dsc "${work}/protobuf" >/dev/null 2>&1

rm -rf "${dest}"
mkdir -p "${dest}"
cp -r "${work}/protobuf/src" "${work}/protobuf/LICENSE" "${dest}/"
echo "${version}" > "${dest}/.debian-version"
echo "fetch_protobuf_source: protobuf ${version} source in ${dest}"
