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
// is one more whole vector ending at its last cell. Row r of the window is
// rows[r] + offset.
inline void ReduceRows(const MaxPoolUint8Row& row, int64_t offset) {
  const int64_t width = row.width;
  const uint8_t* const* rows = row.rows;
  if (width >= kBytes) {
    const int64_t last = width - kBytes;
    for (int64_t j = 0; j < width; j += kBytes) {
      const int64_t c = std::min(j, last) + offset;
      __m256i acc = Load(rows[0] + c);
      for (int64_t r = 1; r < row.row_count; ++r) acc = _mm256_max_epu8(acc, Load(rows[r] + c));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.cells + c - offset), acc);
    }
    return;
  }
  if (width >= 16) {
    for (int64_t c : {int64_t{0}, width - 16}) {
      __m128i acc = Load16(rows[0] + c + offset);
      for (int64_t r = 1; r < row.row_count; ++r) {
        acc = _mm_max_epu8(acc, Load16(rows[r] + c + offset));
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row.cells + c), acc);
    }
    return;
  }
  for (int64_t c = 0; c < width; ++c) {
    uint8_t m = rows[0][c + offset];
    for (int64_t r = 1; r < row.row_count; ++r) m = std::max(m, rows[r][c + offset]);
    row.cells[c] = m;
  }
}

// The maxima of 32 consecutive windows, the first starting at line cell p.
template <int kStride>
inline __m256i Windows(const uint8_t* p, int64_t kernel) {
  if (kStride == 1) {
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

template <int kStride>
void Rows(const MaxPoolUint8Row& row) {
  const int64_t count = row.count, kernel = row.kernel;
  for (int64_t r = 0; r < row.out_rows; ++r) {
    ReduceRows(row, r * row.input_step);
    uint8_t* out = row.out + r * row.output_step;
    if (count < kBytes) {
      // A short row stores a whole vector where the room allows (the caller
      // rewrites the bytes past it), else goes through a buffer.
      const __m256i windows = Windows<kStride>(row.line, kernel);
      if (r * row.output_step + kBytes <= row.out_room) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), windows);
      } else {
        alignas(32) uint8_t buffer[kBytes];
        _mm256_store_si256(reinterpret_cast<__m256i*>(buffer), windows);
        std::memcpy(out, buffer, count);
      }
      continue;
    }
    const int64_t last = count - kBytes;
    for (int64_t j = 0; j < count; j += kBytes) {
      const int64_t first = std::min(j, last);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + first),
                          Windows<kStride>(row.line + first * kStride, kernel));
    }
  }
}

}  // namespace

void Avx2MaxPoolUint8Row(const MaxPoolUint8Row& row) {
  if (row.stride == 1) {
    Rows<1>(row);
  } else {
    Rows<2>(row);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
