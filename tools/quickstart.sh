#!/usr/bin/env bash
# The main job: convert the default deployment file (MobileNet v2, ONNX, CPU),
# build MACE with it, run it with mace_run, and validate the output against
# onnxruntime on the same input. A CPU-only deployment builds only the CPU
# engine (//mace/codegen/cpu): no OpenCL or Hexagon runtime, no Java API.
#
#   tools/quickstart.sh [converter.py run flags, e.g. --round=20]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
bash tools/bootstrap.sh --main
converter=(.venv/bin/python tools/converter.py)
"${converter[@]}" build --config models/mobilenet_v2.yml
"${converter[@]}" run --config models/mobilenet_v2.yml --round=10 --validate --memory_report "$@"
