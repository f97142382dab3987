#!/usr/bin/env bash
# mace_run --device=GPU end to end on this machine's OpenCL device: the
# split model runs on the GPU and the CPU, outputs agree, the program
# cache file is written once and then reused, the kernel time limit
# changes no output bit, and without the device fallback a machine with no
# GPU gets one clear error. --tune writes a tuned-parameter file; a run
# given it and a precompiled binary compiles nothing, gives the same bytes,
# and --benchmark shows GPU kernel times.
#
#   mace_run_gpu_test.sh MACE_RUN WRITE_SPLIT_MODEL
set -uo pipefail
run="$1"
writer="$2"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

"${writer}" "${dir}/split" || { echo "FAIL: cannot write the model" >&2; exit 1; }
model=(--model_file="${dir}/split.pb" --model_data_file="${dir}/split.data")
cache="${dir}/program.bin"

"${run}" "${model[@]}" --output_file="${dir}/cpu" >"${dir}/cpu.log" 2>&1 ||
  fail "CPU run: $(cat "${dir}/cpu.log")"
for storage in fp32_fp32 fp16_fp32; do
  rm -f "${cache}"
  if ! "${run}" "${model[@]}" --device=GPU --opencl_device_fallback --gpu_data_type="${storage}" \
      --opencl_cache_file="${cache}" --output_file="${dir}/${storage}" --memory_report \
      >"${dir}/gpu.log" 2>&1; then
    fail "GPU run (${storage}): $(cat "${dir}/gpu.log")"
    continue
  fi
  # Memory report rows: type, runtime, strategy, planned, naive, lower bound,
  # blocks. The images are planned (lower bound <= planned <= naive); the
  # split model keeps nothing in GPU buffers, shown as a row of zeros.
  image_row=$(grep -E "^  GPU_IMAGE +GPU " "${dir}/gpu.log")
  if [[ -z "${image_row}" ]]; then
    fail "${storage}: no GPU_IMAGE plan in --memory_report"
  else
    read -r _ _ _ planned naive lower blocks <<<"${image_row}"
    (( lower > 0 && lower <= planned && planned <= naive && blocks > 0 )) ||
      fail "${storage}: GPU_IMAGE row out of order: ${image_row}"
  fi
  grep -qE "^  GPU_BUFFER +- +\(no tensors\) +0 +0 +0 +0$" "${dir}/gpu.log" ||
    fail "${storage}: no GPU_BUFFER row in --memory_report"
  [[ -s "${cache}" ]] || fail "${storage}: no program cache written"
  cp "${cache}" "${dir}/first.bin"
  "${run}" "${model[@]}" --device=GPU --opencl_device_fallback --gpu_data_type="${storage}" \
    --opencl_cache_file="${cache}" >"${dir}/again.log" 2>&1 || fail "second GPU run (${storage})"
  grep -q "program cache" "${dir}/again.log" && fail "${storage}: cache warning on reuse"
  cmp -s "${cache}" "${dir}/first.bin" || fail "${storage}: the cache was rewritten on reuse"
  python3 - "${dir}/cpu_y.npy" "${dir}/${storage}_y.npy" "${storage}" <<'PY' || fail "${storage}: outputs differ"
import struct, sys

def floats(path):
    data = open(path, "rb").read()
    header = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header:]
    return struct.unpack("<%df" % (len(body) // 4), body)

cpu, gpu = floats(sys.argv[1]), floats(sys.argv[2])
tolerance = 1e-2 if sys.argv[3] == "fp16_fp32" else 1e-4
scale = max([1.0] + [abs(v) for v in cpu])
bad = [i for i, (a, b) in enumerate(zip(cpu, gpu)) if abs(a - b) > tolerance * scale]
if len(cpu) != len(gpu) or not cpu or bad:
    print("mismatch at", bad[:10], file=sys.stderr)
    sys.exit(1)
PY
done

gpu=(--device=GPU --opencl_device_fallback --gpu_data_type=fp32_fp32)
"${run}" "${model[@]}" "${gpu[@]}" --opencl_cache_file="${dir}/binary.bin" \
  --opencl_parameter_file="${dir}/tuned.bin" --tune --output_file="${dir}/tuned" \
  >"${dir}/tune.log" 2>&1 || fail "tuning run: $(cat "${dir}/tune.log")"
[[ -s "${dir}/tuned.bin" ]] || fail "--tune wrote no parameter file"
"${run}" "${model[@]}" "${gpu[@]}" --opencl_binary_file="${dir}/binary.bin" \
  --opencl_parameter_file="${dir}/tuned.bin" --output_file="${dir}/packed" --benchmark \
  >"${dir}/packed.log" 2>&1 || fail "run with the tuned files: $(cat "${dir}/packed.log")"
grep -q "loaded from binary file" "${dir}/packed.log" || fail "the binary file was not used"
grep -q "ignored" "${dir}/packed.log" && fail "a file was ignored: $(cat "${dir}/packed.log")"
cmp -s "${dir}/tuned_y.npy" "${dir}/fp32_fp32_y.npy" || fail "tuned output differs from untuned"
cmp -s "${dir}/packed_y.npy" "${dir}/fp32_fp32_y.npy" || fail "packed output differs"
grep -q "device ms" "${dir}/packed.log" || fail "--benchmark shows no GPU kernel times"
grep -q "sum of device medians" "${dir}/packed.log" || fail "no device time sum"
# --limit_opencl_kernel_time=1 with a tiny work-per-ms figure splits every
# long kernel; the output file is byte for byte the unsplit one.
if MACE_OPENCL_WORK_PER_MS=1 "${run}" "${model[@]}" --device=GPU --opencl_device_fallback \
    --gpu_data_type=fp32_fp32 --limit_opencl_kernel_time=1 --output_file="${dir}/split" \
    >"${dir}/split.log" 2>&1; then
  cmp -s "${dir}/split_y.npy" "${dir}/fp32_fp32_y.npy" || fail "split kernels changed the output"
else
  fail "GPU run with the kernel time limit: $(cat "${dir}/split.log")"
fi

# Without the fallback a machine whose only OpenCL device is not a GPU
# (PoCL's CPU device here) gets one clear error, not a crash.
if "${run}" "${model[@]}" --device=GPU >"${dir}/strict.log" 2>&1; then
  grep -q "OpenCL device: .*(GPU)" "${dir}/strict.log" || fail "strict GPU run succeeded on no GPU"
else
  grep -q "no OpenCL GPU device" "${dir}/strict.log" || fail "unclear error: $(cat "${dir}/strict.log")"
fi

if [[ ${failures} -gt 0 ]]; then
  echo "${failures} failure(s)" >&2
  exit 1
fi
echo "PASS"
