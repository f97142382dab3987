#!/usr/bin/env bash
# Runs every libFuzzer target (clang, ASan), each for the given time or runs:
#   model_loader_fuzzer  model graphs and weights (mace/libmace/fuzz/)
#   run_flags_fuzzer     mace_run's flags and .npy inputs (mace/tools/fuzz/)
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

# package:fuzzer:seed writer
targets=(
  "mace/libmace:model_loader_fuzzer:fuzz_seeds"
  "mace/tools:run_flags_fuzzer:run_flags_fuzz_seeds"
)

base="${HOME}/.cache/mace-bazel-fuzz"
fuzz_bazel() { CC=clang CXX=clang++ bazel --output_base="${base}" "$@"; }
labels=()
for target in "${targets[@]}"; do
  IFS=: read -r package fuzzer seeds <<<"${target}"
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
  IFS=: read -r package fuzzer seeds <<<"${target}"
  corpus="${work}/${fuzzer}/corpus"
  mkdir -p "${corpus}"
  "${bin}/${package}/${seeds}" "${corpus}"
  echo "== ${fuzzer}"
  status=0
  ASAN_OPTIONS=detect_leaks=1 "${bin}/${package}/${fuzzer}" \
    "${limit}" -seed=7767517 -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="${work}/artifacts/${fuzzer}-" "${corpus}" 2>&1 | tail -n 15 || status=$?
  if ((status != 0)); then
    echo "== ${fuzzer} FAILED (exit ${status}); crash inputs are in ${work}/artifacts/"
    failed=1
  fi
done
exit "${failed}"
