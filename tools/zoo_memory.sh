#!/usr/bin/env bash
# Plans every model-zoo graph with every memory strategy and prints markdown
# tables of arena size (against the max-live lower bound and the naive sum)
# and planning time. The zoo section of docs/reports/memory_planning.md was
# made with it.
#
#   tools/zoo_memory.sh [--models mobilenet_v2,resnet50] [--plan_time_limit_ms N]
#   tools/zoo_memory.sh --device GPU [--models ...]   GPU memory types, both storages
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
bash tools/bootstrap.sh >&2
bazel build //mace/tools:mace_run >&2
PYTHONPATH="${repo}/tools/python" .venv/bin/python -m mace_tools.zoo_memory \
  --mace_run="$(bazel info bazel-bin 2>/dev/null)/mace/tools/mace_run" "$@"
