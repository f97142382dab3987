#!/usr/bin/env bash
# Fuzzes the model loader with libFuzzer (clang, ASan).
#
#   tools/fuzz.sh                 60 seconds
#   tools/fuzz.sh 600             ten minutes
#   tools/fuzz.sh --runs=20000    a fixed number of iterations (CI smoke run)
#
# Uses its own Bazel output base, because the fuzz build needs clang as the
# host compiler. Crashes are written to build/fuzz/artifacts/.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
limit="-max_total_time=${1:-60}"
[[ "${1:-}" == --runs=* ]] && limit="-runs=${1#--runs=}"

base="${HOME}/.cache/mace-bazel-fuzz"
fuzz_bazel() { CC=clang CXX=clang++ bazel --output_base="${base}" "$@"; }
# No bazel-* convenience links: they would point the checkout's links at this
# output base, and the main build's `//...` would then walk into it.
fuzz_bazel build --config=fuzz --symlink_prefix=/ //mace/libmace:model_loader_fuzzer \
  //mace/libmace:fuzz_seeds
bin="$(fuzz_bazel info --config=fuzz bazel-bin 2>/dev/null)"

work="build/fuzz"
mkdir -p "${work}/corpus" "${work}/artifacts"
"${bin}/mace/libmace/fuzz_seeds" "${work}/corpus"
ASAN_OPTIONS=detect_leaks=1 "${bin}/mace/libmace/model_loader_fuzzer" \
  "${limit}" -seed=7767517 -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="${work}/artifacts/" "${work}/corpus" 2>&1 | tail -n 15
