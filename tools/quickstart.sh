#!/usr/bin/env bash
# The main job: convert the default deployment file (MobileNet v2, ONNX, CPU),
# build MACE with it, run it with mace_run, and validate the output against
# onnxruntime on the same input. The deployment file is CPU-only and
# model-specific, so the build links the CPU engine with MobileNet v2's ops
# only (the generated //mace/codegen/op_registry package): no OpenCL or
# Hexagon runtime, no other op, no Java API.
#
#   tools/quickstart.sh [converter.py run flags, e.g. --round=20]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
bash tools/bootstrap.sh --main
converter=(.venv/bin/python tools/converter.py)
"${converter[@]}" build --config models/mobilenet_v2.yml
"${converter[@]}" run --config models/mobilenet_v2.yml --round=10 --validate --memory_report "$@"
