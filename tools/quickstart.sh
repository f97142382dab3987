#!/usr/bin/env bash
# The main job: build MACE, build MobileNet v2 as a MACE model, run it on the
# CPU with mace_run, and validate the output against numpy.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
bash tools/bootstrap.sh
bazel build //mace/tools:mace_run
PYTHONPATH="${repo}/tools/python" .venv/bin/python tools/python/run_demo.py \
  --mace_run "$(bazel info bazel-bin 2>/dev/null)/mace/tools/mace_run" "$@"
