// AVX2 uint8 max pooling rows (MaxPoolUint8RowKernel).
//
// The window's input rows are reduced into the line with vpmaxub, 32 bytes
// per step. Each output then takes the maximum of `kernel` neighbouring
// line cells, 32 outputs per step: at stride 1 from loads at offsets 0 to
// kernel - 1; at stride 2 the 64 cells from offset 2m are split into even
// and odd bytes (mask or shift, then vpackuswb), which give taps 2m and
// 2m + 1 of all 32 windows. vpackuswb packs within 128-bit lanes, so every
// tap comes out in the same lane order and one vpermq per output vector
// restores it. A row's ragged end is one more whole vector ending at the
// last output (or input cell); rows of fewer than 32 outputs go through a
// small buffer, and of fewer than 32 cells take 16-byte vectors.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int64_t kBytes = 32;

__m256i Load(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

__m128i Load16(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// The cells are recomputed from the rows, never read, so a row's ragged end
// is one more whole vector ending at its last cell.
void ReduceRows(const MaxPoolUint8Row& row) {
  const int64_t width = row.width;
  if (width >= kBytes) {
    const int64_t last = width - kBytes;
    for (int64_t j = 0; j < width; j += kBytes) {
      const int64_t c = std::min(j, last);
      __m256i acc = Load(row.rows[0] + c);
      for (int64_t r = 1; r < row.row_count; ++r) {
        acc = _mm256_max_epu8(acc, Load(row.rows[r] + c));
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.cells + c), acc);
    }
    return;
  }
  if (width >= 16) {
    for (int64_t c : {int64_t{0}, width - 16}) {
      __m128i acc = Load16(row.rows[0] + c);
      for (int64_t r = 1; r < row.row_count; ++r) acc = _mm_max_epu8(acc, Load16(row.rows[r] + c));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row.cells + c), acc);
    }
    return;
  }
  for (int64_t c = 0; c < width; ++c) {
    uint8_t m = row.rows[0][c];
    for (int64_t r = 1; r < row.row_count; ++r) m = std::max(m, row.rows[r][c]);
    row.cells[c] = m;
  }
}

// The maxima of 32 consecutive windows, the first starting at line cell p.
__m256i Windows(const uint8_t* p, int64_t kernel, int64_t stride) {
  if (stride == 1) {
    __m256i acc = Load(p);
    for (int64_t k = 1; k < kernel; ++k) acc = _mm256_max_epu8(acc, Load(p + k));
    return acc;
  }
  const __m256i low_bytes = _mm256_set1_epi16(0x00ff);
  __m256i acc = _mm256_setzero_si256();
  for (int64_t k = 0; k < kernel; k += 2) {
    const __m256i a = Load(p + k), b = Load(p + k + kBytes);
    acc = _mm256_max_epu8(acc, _mm256_packus_epi16(_mm256_and_si256(a, low_bytes),
                                                   _mm256_and_si256(b, low_bytes)));
    if (k + 1 < kernel) {
      acc = _mm256_max_epu8(
          acc, _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8)));
    }
  }
  return _mm256_permute4x64_epi64(acc, _MM_SHUFFLE(3, 1, 2, 0));
}

}  // namespace

void Avx2MaxPoolUint8Row(const MaxPoolUint8Row& row) {
  ReduceRows(row);
  const int64_t count = row.count, kernel = row.kernel, stride = row.stride;
  if (count < kBytes) {
    alignas(32) uint8_t buffer[kBytes];
    _mm256_store_si256(reinterpret_cast<__m256i*>(buffer), Windows(row.line, kernel, stride));
    std::memcpy(row.out, buffer, count);
    return;
  }
  const int64_t last = count - kBytes;
  for (int64_t j = 0; j < count; j += kBytes) {
    const int64_t first = std::min(j, last);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.out + first),
                        Windows(row.line + first * stride, kernel, stride));
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
