#!/usr/bin/env bash
# Runs every libFuzzer target (clang, ASan), each for the given time or runs:
#   model_loader_fuzzer  model graphs and weights (mace/libmace/fuzz/)
#   engine_fuzzer        structured model mutations, built and run under a
#                        memory limit (mace/libmace/fuzz/)
#   run_flags_fuzzer     mace_run's flags and .npy inputs (mace/tools/fuzz/)
#   converter            the converter's parsers: deployment YAML, ONNX,
#                        TensorFlow, Caffe, and structure-aware deployment
#                        files and ONNX graphs (tools/converter_fuzz.py, Python)
#
#   tools/fuzz.sh                 60 seconds per target
#   tools/fuzz.sh 600             ten minutes per target
#   tools/fuzz.sh --runs=20000    a fixed number of iterations (CI smoke run)
#
# Uses its own Bazel output base, because the fuzz build needs clang as the
# host compiler. Crashes are written to build/fuzz/artifacts/, prefixed with
# the target's name. Exits non-zero when any target fails.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
limit="-max_total_time=${1:-60}"
[[ "${1:-}" == --runs=* ]] && limit="-runs=${1#--runs=}"

# package:fuzzer:seed writer:maximum input length
targets=(
  "mace/libmace:model_loader_fuzzer:fuzz_seeds:4096"
  "mace/libmace:engine_fuzzer:fuzz_seeds:16384"
  "mace/tools:run_flags_fuzzer:run_flags_fuzz_seeds:4096"
)

base="${HOME}/.cache/mace-bazel-fuzz"
fuzz_bazel() { CC=clang CXX=clang++ bazel --output_base="${base}" "$@"; }
labels=()
for target in "${targets[@]}"; do
  IFS=: read -r package fuzzer seeds max_len <<<"${target}"
  labels+=("//${package}:${fuzzer}" "//${package}:${seeds}")
done
# No bazel-* convenience links: they would point the checkout's links at this
# output base, and the main build's `//...` would then walk into it.
fuzz_bazel build --config=fuzz --symlink_prefix=/ "${labels[@]}"
bin="$(fuzz_bazel info --config=fuzz bazel-bin 2>/dev/null)"

work="build/fuzz"
mkdir -p "${work}/artifacts"
failed=0
for target in "${targets[@]}"; do
  IFS=: read -r package fuzzer seeds max_len <<<"${target}"
  corpus="${work}/${fuzzer}/corpus"
  mkdir -p "${corpus}"
  "${bin}/${package}/${seeds}" "${corpus}"
  if [[ "${fuzzer}" == engine_fuzzer ]]; then
    # Zoo seeds: MobileNet v2's first layers, with and without a memory plan.
    "${repo}/.venv/bin/python" tools/python/mace_tools/engine_fuzz_seeds.py "${corpus}" >/dev/null
  fi
  echo "== ${fuzzer}"
  status=0
  ASAN_OPTIONS=detect_leaks=1 "${bin}/${package}/${fuzzer}" \
    "${limit}" -seed=7767517 -max_len="${max_len}" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="${work}/artifacts/${fuzzer}-" "${corpus}" 2>&1 | tail -n 15 || status=$?
  if ((status != 0)); then
    echo "== ${fuzzer} FAILED (exit ${status}); crash inputs are in ${work}/artifacts/"
    failed=1
  fi
done

# The converter's parsers: seeded mutations in Python, for the same time per
# target (or 200 inputs per target in a --runs smoke).
echo "== converter"
converter_budget="--seconds=${1:-60}"
[[ "${1:-}" == --runs=* ]] && converter_budget="--cases=200"
if ! PYTHONPATH="${repo}/tools/python" "${repo}/.venv/bin/python" tools/converter_fuzz.py \
  "${converter_budget}" --out="${work}/artifacts"; then
  echo "== converter FAILED; inputs are in ${work}/artifacts/"
  failed=1
fi
exit "${failed}"
