// The uint8 output step on AVX2 (RequantizeRowKernel), bit-exact with
// Requantize in mace/ops/common/quantize.h: |x| times the multiplier as
// 64-bit products (vpmuludq on even and odd lanes), plus half, shifted right,
// sign restored, zero point added, clamped and narrowed to bytes.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

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
  const __m256i multiplier = _mm256_set1_epi64x(static_cast<uint32_t>(row.multiplier));
  const __m256i half = _mm256_set1_epi64x(int64_t{1} << (row.right_shift - 1));
  const __m128i shift = _mm_cvtsi32_si128(row.right_shift);
  // Clamped before the zero point is added, so that nothing wraps.
  const __m256i zero_point = _mm256_set1_epi32(row.zero_point);
  const __m256i lo = _mm256_set1_epi32(row.lo - row.zero_point);
  const __m256i hi = _mm256_set1_epi32(row.hi - row.zero_point);
  int64_t i = 0;
  for (; i + 8 <= row.count; i += 8) {
    __m256i x = _mm256_add_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row.sums + i)), row_term);
    if (row.column_terms != nullptr) {
      x = _mm256_add_epi32(
          x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row.column_terms + i)));
    }
    // |INT32_MIN| stays 0x80000000, which as unsigned is the right magnitude.
    const __m256i magnitude = _mm256_abs_epi32(x);
    const __m256i even = _mm256_srl_epi64(
        _mm256_add_epi64(_mm256_mul_epu32(magnitude, multiplier), half), shift);
    const __m256i odd = _mm256_srl_epi64(
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(magnitude, 32), multiplier), half),
        shift);
    // Results are below 2^31 (multiplier < 1): recombine the 32-bit halves.
    const __m256i rounded = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    __m256i value = _mm256_sign_epi32(rounded, x);
    value = _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(value, lo), hi), zero_point);
    const __m256i words = _mm256_packs_epi32(value, value);
    const __m256i bytes = _mm256_packus_epi16(words, words);
    const int32_t low = _mm256_extract_epi32(bytes, 0);
    const int32_t high = _mm256_extract_epi32(bytes, 4);
    __builtin_memcpy(row.out + i, &low, 4);
    __builtin_memcpy(row.out + i + 4, &high, 4);
  }
  for (; i < row.count; ++i) row.out[i] = static_cast<uint8_t>(ScalarRequantize(Input(row, i), row));
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
