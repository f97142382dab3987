#!/usr/bin/env bash
# Builds a DSP image: build_image.sh OUT.elf [-DFLAG...] SOURCES...
# The compiler and linker are Debian's clang-14 and ld.lld-14 (system
# packages, installed by tools/bootstrap.sh); the target is a Hexagon v67
# with 128-byte HVX, which qemu-hexagon 7.2 emulates. There is no libc: the
# runtime brings its own start-up code, system calls and helpers.
set -euo pipefail
out="$1"
shift
defines=()
sources=()
for arg in "$@"; do
  case "${arg}" in
    -D*) defines+=("${arg}") ;;
    *) sources+=("${arg}") ;;
  esac
done
objdir="$(mktemp -d)"
trap 'rm -rf "${objdir}"' EXIT
flags=(--target=hexagon-unknown-none-elf -mv67 -mhvx -mhvx-length=128B -O2 -G0
  -ffreestanding -fno-builtin -nostdlib -fno-pic -fno-exceptions -fno-rtti
  -fno-threadsafe-statics -std=c++17 -Wall -Werror -I.)
objects=()
for src in "${sources[@]}"; do
  obj="${objdir}/$(echo "${src}" | tr '/' '_').o"
  case "${src}" in
    *.S) clang-14 --target=hexagon-unknown-none-elf -mv67 -c "${src}" -o "${obj}" ;;
    *) clang-14 "${flags[@]}" "${defines[@]}" -c "${src}" -o "${obj}" ;;
  esac
  objects+=("${obj}")
done
ld.lld-14 -static -e _start "${objects[@]}" -o "${out}"
