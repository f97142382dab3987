// The uint8 output step on AVX2 (RequantizeRowKernel), bit-exact with
// Requantize in mace/ops/common/quantize.h: the step of requantize_avx2.h,
// narrowed to bytes, 8 values at a time.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/requantize_avx2.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

// The tail's scalar rule, a copy of RequantizeToUint8 (common/quantize.h):
// this file is built with -mavx2, and an inline function from a shared
// header compiled here could be merged with baseline callers at link time
// (see cpu/micro_kernels.h).
inline int32_t ScalarRequantize(int32_t x, const RequantizeRow& row) {
  const uint64_t magnitude = x < 0 ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(x))
                                   : static_cast<uint64_t>(x);
  const uint64_t product = magnitude * static_cast<uint32_t>(row.multiplier);
  const int64_t rounded = static_cast<int64_t>(
      (product + (uint64_t{1} << (row.right_shift - 1))) >> row.right_shift);
  int64_t value = row.zero_point + (x < 0 ? -rounded : rounded);
  if (value < row.lo) value = row.lo;
  if (value > row.hi) value = row.hi;
  return static_cast<int32_t>(value);
}

inline int32_t Input(const RequantizeRow& row, int64_t i) {
  uint32_t x = static_cast<uint32_t>(row.sums[i]) + static_cast<uint32_t>(row.row_term);
  if (row.column_terms != nullptr) x += static_cast<uint32_t>(row.column_terms[i]);
  return static_cast<int32_t>(x);
}

}  // namespace

void Avx2RequantizeRow(const RequantizeRow& row) {
  const __m256i row_term = _mm256_set1_epi32(row.row_term);
  const Avx2RequantizeScale scale = Avx2MakeRequantizeScale(row.multiplier, row.right_shift);
  const Avx2RequantizeClamp clamp = Avx2MakeRequantizeClamp(row.zero_point, row.lo, row.hi);
  int64_t i = 0;
  for (; i + 8 <= row.count; i += 8) {
    __m256i x = _mm256_add_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row.sums + i)), row_term);
    if (row.column_terms != nullptr) {
      x = _mm256_add_epi32(
          x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row.column_terms + i)));
    }
    const int64_t bytes = Avx2PackBytes(Avx2Requantize(x, scale, clamp));
    __builtin_memcpy(row.out + i, &bytes, 8);
  }
  for (; i < row.count; ++i) row.out[i] = static_cast<uint8_t>(ScalarRequantize(Input(row, i), row));
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
