#!/bin/bash
# Runs a test binary directly, or under qemu-user when it is an ARM ELF, or
# an x86-64 one with MACE_QEMU_CPU set (a CPU model such as Haswell: AVX2
# and FMA without AVX-512, whatever the host has).
# binfmt_misc is not assumed, so qemu is always called explicitly.
set -e
bin="$1"
machine=""
if [[ -f "$bin" ]]; then
  # e_machine is the little-endian 16-bit field at byte 18 of the ELF header.
  machine=$(od -An -t u2 -j 18 -N 2 "$bin" 2>/dev/null | tr -d ' ')
fi
# The library path keeps the loader and libc from the cross toolchain's own
# sysroot: with -L alone, the loader there can pick up the foreign-arch libc6
# from /lib/<triple> instead, and the mismatched pair deadlocks in
# pthread_create, so every program that starts a thread hangs.
case "$machine" in
  183) exec qemu-aarch64 ${MACE_QEMU_CPU:+-cpu "$MACE_QEMU_CPU"} -L /usr/aarch64-linux-gnu \
         -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib "$@" ;;
  40) exec qemu-arm ${MACE_QEMU_CPU:+-cpu "$MACE_QEMU_CPU"} -L /usr/arm-linux-gnueabihf \
         -E LD_LIBRARY_PATH=/usr/arm-linux-gnueabihf/lib "$@" ;;
  62) if [[ -n "${MACE_QEMU_CPU:-}" ]]; then exec qemu-x86_64 -cpu "$MACE_QEMU_CPU" "$@"; fi
      exec "$@" ;;
  *) exec "$@" ;;
esac
