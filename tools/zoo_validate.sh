#!/usr/bin/env bash
# Builds, runs and validates every model-zoo deployment file on the host (CPU,
# or the GPU runtime with --runtime gpu)
# against its source framework, and prints the validation table and each
# step's time. The tables of docs/reports/zoo_validation.md were made with it.
# It builds one library per deployment file: expect several minutes.
#
#   tools/zoo_validate.sh [--models mobilenet_v2,tiny_tf]
#                         [--runtime gpu [--data-type fp16_fp32|fp32_fp32]]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
bash tools/bootstrap.sh >&2
PYTHONPATH="${repo}/tools/python" exec .venv/bin/python -m mace_tools.zoo_validate "$@"
