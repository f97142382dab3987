#!/usr/bin/env bash
# Counts the x86-64 instructions one inference of each zoo model executes
# under qemu-x86_64 with an AVX2 + FMA CPU model and no AVX-512 (MACE,
# onnxruntime, ncnn) and writes docs/reports/x86_avx2_instructions.md (a
# partial run: build/x86_insn_count/). About ten minutes; not part of the
# tests. Needs the virtualenv (tools/bootstrap.sh) and the peers of
# tools/requirements-bench.txt.
#
#   tools/x86_insn_count.sh [--models mobilenet_v1] [--engines mace,ort] [--cpu Haswell]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
if [[ ! -x .venv/bin/python ]]; then
  echo "x86_insn_count: no .venv; run tools/bootstrap.sh first" >&2
  exit 1
fi
PYTHONPATH="${repo}/tools/python" exec .venv/bin/python -m mace_tools.x86_insn_count "$@"
