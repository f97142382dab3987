#!/usr/bin/env bash
# Counts the ARM instructions one inference of each zoo model executes under
# qemu-user (arm64 and armv7, NEON and reference kernels) and writes
# docs/reports/arm_instructions.md (a partial run: build/arm_insn_count/).
# Half an hour or more in full; not part of the tests.
#
#   tools/arm_insn_count.sh [--models mobilenet_v2] [--abis arm64-v8a]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
bash tools/bootstrap.sh >&2
PYTHONPATH="${repo}/tools/python" exec .venv/bin/python -m mace_tools.arm_insn_count "$@"
