#!/usr/bin/env bash
# The whole test suite: host unit and end-to-end tests, the Python tools and
# converter, the commands and examples of README.md and the pages under docs/
# (tools/docs_test.py; not the generated docs/reports/), the arm64 build
# under qemu-aarch64, its kernel tests also on a baseline CPU model and
# its GEMM and depthwise kernel tests with every NEON activation variant
# left out (as a model-specific library may), armv7
# under qemu-arm on a baseline CPU model when its libraries are installed,
# a sanitizer (ASan + UBSan)
# pass over the engine, a ThreadSanitizer pass over the threaded code, the
# corrupt-model suite under ASan + UBSan, the converter's fuzz smoke run and
# the host Python wheel in a fresh virtualenv.
# The engine's fuzz targets replay their deterministic mutations as tests in
# the host and ASan steps.
#
#   tools/test.sh                 everything below
#   tools/test.sh --host-only     host tests only (C++, Python and the docs)
#   tools/test.sh --asan-all      every C++ test under ASan + UBSan
#   MACE_FULL_ARM=1               arm64 and armv7: every test (by default
#                                 //mace/ops's ISA-neutral op tests run on
#                                 the host only, armv7 runs the kernel, op,
#                                 core and CPU runtime tests), each case
#                                 with 1, 2 and 3 threads (1 and 3 by default)
#   bazel test --config=aarch64 //test:cancellation_test
#                                 the one arm64 test the suite leaves out
#   MACE_LIBFUZZER=1              also a libFuzzer smoke run of the engine's
#                                 targets (a clang build of its own)
#   MACE_FUZZ_RUNS=N              iterations of that run (default 20000)
#   MACE_BAZEL_PROFILE_DIR=DIR    a Bazel profile per test command, as
#                                 DIR/NN.json.gz (`bazel analyze-profile`)
#
# Heavier suites have their own commands (see docs/contributing/testing.md):
#   tools/fuzz.sh [seconds]       a long fuzzing session
#   tools/corrupt_models.py       the full corrupt-model suite (1000 cases)
#   MACE_FULL_ZOO=1 tools/test.sh every zoo model end to end
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
bash tools/bootstrap.sh

# Links left by an older tools/fuzz.sh point into the fuzz output base and
# break `bazel test //...`; the main build recreates its own.
find . -maxdepth 1 -name 'bazel-*' -type l -lname '*mace-bazel-fuzz*' -delete

mode="${1:-all}"
log_dir="$(mktemp -d)"
passed=0
failed=0
# Each step's name, with the seconds since the suite started; the summary
# lists how long each step took, so a slow run shows where its time went.
suite_start=$(date +%s)
step_name=""
step_start=0
step_times=""
end_step() {
  [[ -n "${step_name}" ]] || return 0
  step_times+="$(printf '%7d s  %s' $(( $(date +%s) - step_start )) "${step_name}")"$'\n'
  step_name=""
}
step() {
  end_step
  step_name="$*"
  step_start=$(date +%s)
  printf '\n=== %s (at %d s)\n' "$*" $(( step_start - suite_start ))
}

# Runs a bazel test command, echoes its output and adds its target counts to
# the totals printed at the end.
profile_count=0
bazel_tests() {
  local log="${log_dir}/bazel.log" status=0
  local profile=()
  if [[ -n "${MACE_BAZEL_PROFILE_DIR:-}" ]]; then
    mkdir -p "${MACE_BAZEL_PROFILE_DIR}"
    profile_count=$(( profile_count + 1 ))
    profile=("--profile=${MACE_BAZEL_PROFILE_DIR}/$(printf '%02d' "${profile_count}").json.gz")
  fi
  bazel test "${profile[@]}" "$@" 2>&1 | tee "${log}" || status=$?
  passed=$(( passed + $(grep -cE '^//.* PASSED' "${log}" || true) ))
  failed=$(( failed + $(grep -cE '^//.* (FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "${log}" || true) ))
  return "${status}"
}

# Fills the array named $1 with the tests a Bazel query ($3) finds; fewer
# than $2 (a tag that lost its tests) fails the suite, naming them as $4.
query_tests() {
  local -n found="$1"
  mapfile -t found < <(bazel query "$3" 2>/dev/null)
  if (( ${#found[@]} < $2 )); then
    echo "$4: found ${#found[@]}, expected at least $2" >&2
    failed=$(( failed + 1 ))
    exit 1
  fi
}

python_tests() {
  local log="${log_dir}/python.log" status=0
  local bin
  bin="$(bazel info bazel-bin 2>/dev/null)"
  MACE_RUN="${bin}/mace/tools/mace_run" MACE_DSP_RUNTIME="${bin}/mace/dsp/dsp_runtime.elf" \
    PYTHONPATH="${repo}/tools/python" \
    .venv/bin/python -m unittest discover -s tools/python/tests -t tools/python 2>&1 |
    tee "${log}" || status=$?
  local ran
  ran=$(sed -nE 's/^Ran ([0-9]+) tests?.*/\1/p' "${log}" | tail -n 1)
  local bad
  bad=$({ grep -oE '(failures|errors)=[0-9]+' "${log}" || true; } |
    awk -F= '{s += $2} END {print s + 0}')
  passed=$(( passed + ${ran:-0} - ${bad:-0} ))
  failed=$(( failed + ${bad:-0} ))
  (( status == 0 && ${ran:-0} > 0 ))
}

# Runs the blocks of README.md and docs/ (tools/docs_test.py) and adds
# its block counts to the totals; skipped blocks count as neither.
docs_tests() {
  local log="${log_dir}/docs.log" status=0
  python3 tools/docs_test.py 2>&1 | tee "${log}" || status=$?
  local counts
  counts=$(tail -n 1 "${log}" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, [0-9]+ skipped$/\1 \2/p')
  if [[ -z "${counts}" ]]; then
    failed=$(( failed + 1 ))
    return 1
  fi
  passed=$(( passed + ${counts% *} ))
  failed=$(( failed + ${counts#* } ))
  return "${status}"
}

summary() {
  end_step
  echo
  [[ -z "${step_times}" ]] || printf 'step times:\n%s' "${step_times}"
  echo "tests: ${passed} passed, ${failed} failed"
}
trap 'summary; rm -rf "${log_dir}"' EXIT

if [[ "${mode}" == "--asan-all" ]]; then
  # The ops and kernels at -O1 (the config builds everything at -O0): the
  # kernel tests' sweeps would run several times slower.
  step "asan: every test under AddressSanitizer + UndefinedBehaviorSanitizer"
  bazel_tests --config=asan '--per_file_copt=^mace/ops/.*@-O1' //...
  exit 0
fi

step "host: bazel test //..."
bazel_tests //...

# The benchmarks are tagged manual, so the tests above never build them:
# build every one, so that none falls behind the kernels it times.
step "host: every benchmark builds"
query_tests benchmarks 12 'filter("_benchmark$", kind(cc_binary, //mace/...))' "benchmark binaries"
bazel build "${benchmarks[@]}" || { failed=$((failed + 1)); exit 1; }
passed=$((passed + 1))

# A build that leaves every optional CPU kernel family out (as model-specific
# libraries do with the families their models never run): the tables say
# so, and the ops give the same results on their other kernels (the op
# tests, and the zoo models against their references). Only the families'
# libraries and the tests' links differ from the step above.
omitted_families=(depthwise winograd blocked uint8 fp16)
step "host: kernel families left out (${omitted_families[*]})"
omit_flags=()
for family in "${omitted_families[@]}"; do
  omit_flags+=("--define=mace_cpu_kernels_${family}=off")
done
absent_list="${omitted_families[*]}"
bazel_tests "${omit_flags[@]}" --test_env=MACE_TEST_ABSENT_FAMILIES="${absent_list// /,}" \
  //mace/ops:cpu_kernel_table_test //mace/ops:conv_2d_test //mace/ops:depthwise_conv_2d_test \
  //mace/ops:pooling_test //mace/ops:fully_connected_test //mace/ops:quantized_kernels_test \
  //mace/ops:eltwise_test //test:engine_test
# The same build without the ops' integer kernels, as a float model's
# library (--define=mace_integer_kernels=off): they are not registered.
bazel_tests "${omit_flags[@]}" --define=mace_integer_kernels=off //mace/ops:integer_kernels_test

# An AVX2-only x86 host: qemu-x86_64 with a Haswell CPU model (AVX2 and FMA,
# no AVX-512) answers cpuid whatever this host has, so the feature detection
# and the kernels a CPU feature picks (the tests tagged
# cpu_feature_variants: the uint8 and fp16 families, the kernel tables) and
# the engine run as they would there. On an AVX-512 host the steps above
# test the AVX2 kernels too, but never pick them by default. The aarch64
# baseline step below runs the same tests.
query_tests feature_variant_tests 15 'attr(tags, "\bcpu_feature_variants\b", tests(//mace/...))' \
  "feature variant tests"
if [[ "$(uname -m)" == x86_64 ]]; then
  step "host as an AVX2-only x86: feature variant tests under qemu-x86_64 -cpu Haswell"
  bazel_tests --run_under=//tools/qemu:qemu_run --test_env=MACE_QEMU_CPU=Haswell \
    "${feature_variant_tests[@]}" //test:engine_test
fi

step "python tools and converter"
python_tests

# The host wheel (tools/wheel.sh) in a fresh virtualenv under build/wheel,
# run on MobileNet v2 against the host mace_run on the same seeded input.
step "wheel: the host wheel in a fresh virtualenv against mace_run"
wheel_status=0
{ bash tools/wheel.sh &&
  .venv/bin/python tools/converter.py convert --config models/mobilenet_v2.yml &&
  .venv/bin/python tools/wheel_check.py \
    --wheel "$(ls build/wheel/mace_engine-*-py3-none-linux_"$(uname -m)".whl)" \
    --mace_run "$(bazel info bazel-bin 2>/dev/null)/mace/tools/mace_run" \
    --model build/mobilenet_v2/model/mobilenet_v2.pb; } || wheel_status=$?
if ((wheel_status == 0)); then passed=$((passed + 1)); else failed=$((failed + 1)); fi
((wheel_status == 0))

# The docs' commands include an arm64 build of a small model: in a full run
# they come after the aarch64 step, whose objects that build reuses.
docs_step() {
  step "docs: every command and example of README.md and docs/"
  docs_tests
}
if [[ "${mode}" == "--host-only" ]]; then
  docs_step
  exit 0
fi

# Tests tagged opencl need an OpenCL device (PoCL on the host); under qemu
# there is none, and no_platform_test checks the error a GPU engine gives.
# Tests tagged hexagon start qemu-hexagon from the host; they run in the
# host step only.
# cancellation_test is tagged exclusive (its latency figures must not be
# another test's), so Bazel runs it alone after every other test, and its
# 40 cancelled runs per thread count take three minutes under qemu: it runs
# in the host and ASan steps, and on arm64 by its own command (above).
#
# Under qemu, //mace/ops runs its kernel tests and the tests of the ops whose
# CPU code calls the kernel libraries (tags cpu_kernels and cpu_kernel_calls,
# mace/ops/BUILD.bazel): an ISA-neutral op's code is the same C++ on every
# CPU, and its tests run in the host step. Kernel and engine tests run each
# case with no pool and with 3 threads (MACE_TEST_THREADS,
# mace/utils/testing/test_threads.h): the whole range and uneven chunks.
# MACE_FULL_ARM=1 runs every test with 1, 2 and 3 threads.
query_tests arm_op_tests 50 \
  'attr(tags, "\bcpu_kernels\b|\bcpu_kernel_calls\b", tests(//mace/ops:all))' \
  "arm: kernel and kernel-calling op tests"
if [[ "${MACE_FULL_ARM:-0}" == 1 ]]; then
  arm_threads=()
  aarch64_targets=(//mace/... //test/... //java:self_contained_test -//test:cancellation_test)
else
  arm_threads=(--test_env=MACE_TEST_THREADS=1,3)
  aarch64_targets=(//mace/... //test/... //java:self_contained_test -//test:cancellation_test
    -//mace/ops:all "${arm_op_tests[@]}")
fi
step "aarch64: cross build, tests under qemu-aarch64 (no OpenCL device)"
bazel_tests --config=aarch64 --build_tests_only --test_tag_filters=-opencl,-hexagon \
  "${arm_threads[@]}" -- "${aarch64_targets[@]}"

docs_step

# qemu's default CPU has every optional feature; a Cortex-A53 has neither
# the dot product nor FP16 arithmetic, so the kernels those features pick
# (the uint8 and fp16 families) and the feature detection run on both: the
# tests tagged cpu_feature_variants. Every other kernel is the same code on
# both CPUs and ran above.
step "aarch64 baseline: CPU feature variant tests under qemu-aarch64 -cpu cortex-a53"
bazel_tests --config=aarch64 --test_env=MACE_QEMU_CPU=cortex-a53 "${arm_threads[@]}" \
  "${feature_variant_tests[@]}"

# A model-specific library leaves out the activation variants of the NEON
# GEMM and depthwise kernels, and the element-wise operations, its models
# never pick (mace/ops/arm/linked_variants.h); the kernels then run the
# two-sided clamp with an infinite bound, depthwise hard swish as a pass
# over the band, and element-wise rows through the generic row. The tests
# of those kernels, with every variant left out, check those paths.
step "aarch64: NEON kernel variants left out, kernel tests under qemu-aarch64"
neon_variant_flags=()
for variant in gemm_unclamped gemm_lower_clamp depthwise_unclamped depthwise_lower_clamp \
  depthwise_hardswish eltwise_sum eltwise_weighted_sum eltwise_sub eltwise_prod eltwise_div \
  eltwise_min eltwise_max eltwise_neg eltwise_abs eltwise_sqr_diff; do
  neon_variant_flags+=("--define=mace_neon_${variant}=off")
done
bazel_tests --config=aarch64 "${neon_variant_flags[@]}" "${arm_threads[@]}" \
  //mace/ops:cpu_gemm_test //mace/ops:cpu_depthwise_conv_2d_test //mace/ops:cpu_conv_2d_test \
  //mace/ops:cpu_fully_connected_test //mace/ops:cpu_eltwise_test

armhf_ready() {
  local pkg
  for pkg in libprotobuf-lite32:armhf g++-arm-linux-gnueabihf; do
    dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null | grep -q "ok installed" || return 1
  done
}
if armhf_ready; then
  # armv7's own code is its kernels and the CPU runtime: CI runs the kernel
  # and kernel-calling op tests (as arm64 does), the core and CPU runtime
  # tests and the libraries' link check. The whole suite (MACE_FULL_ARM=1)
  # adds every other op test and a second cross build of every end-to-end
  # test.
  if [[ "${MACE_FULL_ARM:-0}" == 1 ]]; then
    armhf_targets=(//mace/... //test/... //java:self_contained_test)
  else
    armhf_targets=("${arm_op_tests[@]}" //mace/runtimes/cpu:all //mace/core/...
      //mace/libmace:self_contained_test //java:self_contained_test)
  fi
  # armv7 builds for ARMv7-A with NEON and dispatches on nothing else (the
  # dot-product, FP16 and CRC32 kernels are arm64's), so qemu's default CPU
  # runs the same code as a Cortex-A7: one run, on the baseline core.
  step "armv7: cross build, ${#armhf_targets[@]} test targets under qemu-arm -cpu cortex-a7 (no OpenCL device)"
  bazel_tests --config=armhf --build_tests_only --test_tag_filters=-opencl,-hexagon \
    --test_env=MACE_QEMU_CPU=cortex-a7 "${arm_threads[@]}" "${armhf_targets[@]}"
else
  step "armv7: skipped (bootstrap could not install the armhf toolchain and libraries)"
fi

# The sanitizer steps link only the ops their tests create
# (mace/libmace/testing/sanitizer_registry.cc): every other op's code would
# be compiled with the sanitizers and never run. op_set_full_test checks
# the full registry, so it runs in the host step only.
sanitizer_smoke=(--define=mace_op_set=sanitizer_smoke)
step "asan smoke: engine, core, memory, loader and tool tests under ASan + UBSan"
bazel_tests --config=asan "${sanitizer_smoke[@]}" -- //test/... //mace/core/... \
  //mace/libmace/... //mace/tools/... -//mace/libmace:op_set_full_test

# Mutated models, weights, inputs and flags through the ASan/UBSan mace_run
# the step above built; fails on any crash, hang or silent accept.
step "corrupt models: 60 mutated cases through mace_run under ASan + UBSan"
corrupt_status=0
.venv/bin/python tools/corrupt_models.py --cases=60 \
  --mace_run="$(bazel info --config=asan "${sanitizer_smoke[@]}" bazel-bin 2>/dev/null)/mace/tools/mace_run" ||
  corrupt_status=$?
if ((corrupt_status == 0)); then passed=$((passed + 1)); else failed=$((failed + 1)); fi
((corrupt_status == 0))

step "tsan: thread pool, engine, concurrency, pipeline, GPU and DSP context tests under ThreadSanitizer"
bazel_tests --config=tsan "${sanitizer_smoke[@]}" //mace/runtimes/cpu:compute_test //test:concurrency_test \
  //test:engine_test //test:split_runtime_test //test:pipeline_test //test:gpu_context_test \
  //test:hexagon_engine_test //mace/runtimes/hexagon:dsp_session_test

if [[ "${MACE_LIBFUZZER:-0}" == 1 ]]; then
  step "fuzz smoke: every fuzz target (model loader, engine, mace_run flags and .npy, converter)"
  bash tools/fuzz.sh --runs="${MACE_FUZZ_RUNS:-20000}"
else
  step "fuzz smoke: the converter's parsers (200 cases per target)"
  PYTHONPATH="${repo}/tools/python" .venv/bin/python tools/converter_fuzz.py --cases=200 \
    --out=build/fuzz/artifacts
fi
