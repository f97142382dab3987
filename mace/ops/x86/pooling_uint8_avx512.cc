// AVX-512 BW and VBMI uint8 max pooling rows (MaxPoolUint8RowKernel), 64
// bytes per step with masked loads and stores, so no row needs a scalar
// or buffered tail.
//
// A row whose padded line fits one vector (SqueezeNet's 27- and 55-wide
// inputs at stride 2 and most small planes) stays in registers: its
// window rows are reduced by masked loads that read zeros past the
// width, and tap k of every output is one vpermb of that vector with
// indices stride * j + k - pad_left, lanes whose index falls in the left
// padding zeroed by the mask (the padding's 0 never wins a max over a
// window that holds an input). Wider rows go through the line as the AVX2
// kernel does: the reduced cells are stored with a masked store (the
// padding past the width stays 0), then at stride 1 each output vector is
// the max of `kernel` shifted loads, and at stride 2 the max of the taps
// over 128 line bytes, whose even bytes one vpermt2b gathers.
#include <algorithm>
#include <cstdint>

#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int64_t kBytes = 64;
// Taps the register path keeps their indices for in registers.
constexpr int64_t kMaxRegisterTaps = 8;

alignas(64) constexpr uint8_t kIota[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

__attribute__((target("avx512bw"))) inline __mmask64 Lanes(int64_t n) {
  return n >= kBytes ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
}

// The max over the window rows of cells [at, at + lanes), 0 past them.
__attribute__((target("avx512bw"))) inline __m512i Reduce(const MaxPoolUint8Row& row,
                                                          int64_t at, __mmask64 mask) {
  __m512i acc = _mm512_maskz_loadu_epi8(mask, row.rows[0] + at);
  for (int64_t r = 1; r < row.row_count; ++r) {
    acc = _mm512_max_epu8(acc, _mm512_maskz_loadu_epi8(mask, row.rows[r] + at));
  }
  return acc;
}

// The whole padded line in one vector: pad_left + width <= 64 and
// stride * (count - 1) + kernel <= 64, kernel <= kMaxRegisterTaps.
__attribute__((target("avx512bw,avx512vbmi"))) void RegisterRows(const MaxPoolUint8Row& row) {
  const int64_t pad_left = row.cells - row.line;
  __m512i index[kMaxRegisterTaps];
  __mmask64 inside[kMaxRegisterTaps];
  const __m512i iota = _mm512_load_si512(kIota);
  // stride * j - pad_left, as signed bytes in [-63, 63] for j < count.
  __m512i at = _mm512_sub_epi8(row.stride == 2 ? _mm512_add_epi8(iota, iota) : iota,
                               _mm512_set1_epi8(static_cast<char>(pad_left)));
  for (int64_t k = 0; k < row.kernel; ++k) {
    index[k] = at;
    inside[k] = _mm512_cmpge_epi8_mask(at, _mm512_setzero_si512());
    at = _mm512_add_epi8(at, _mm512_set1_epi8(1));
  }
  const __mmask64 cells = Lanes(row.width), outputs = Lanes(row.count);
  for (int64_t r = 0; r < row.out_rows; ++r) {
    const __m512i reduced = Reduce(row, r * row.input_step, cells);
    __m512i acc = _mm512_maskz_permutexvar_epi8(inside[0], index[0], reduced);
    for (int64_t k = 1; k < row.kernel; ++k) {
      acc = _mm512_max_epu8(acc, _mm512_maskz_permutexvar_epi8(inside[k], index[k], reduced));
    }
    _mm512_mask_storeu_epi8(row.out + r * row.output_step, outputs, acc);
  }
}

__attribute__((target("avx512bw,avx512vbmi"))) void LineRows(const MaxPoolUint8Row& row) {
  const int64_t count = row.count, kernel = row.kernel;
  const __m512i iota = _mm512_load_si512(kIota);
  const __m512i even = _mm512_add_epi8(iota, iota);
  for (int64_t r = 0; r < row.out_rows; ++r) {
    const int64_t offset = r * row.input_step;
    for (int64_t c = 0; c < row.width; c += kBytes) {
      const __mmask64 mask = Lanes(row.width - c);
      _mm512_mask_storeu_epi8(row.cells + c, mask, Reduce(row, offset + c, mask));
    }
    uint8_t* out = row.out + r * row.output_step;
    for (int64_t j = 0; j < count; j += kBytes) {
      __m512i acc;
      if (row.stride == 1) {
        const uint8_t* p = row.line + j;
        acc = _mm512_loadu_si512(p);
        for (int64_t k = 1; k < kernel; ++k) acc = _mm512_max_epu8(acc, _mm512_loadu_si512(p + k));
      } else {
        const uint8_t* p = row.line + 2 * j;
        __m512i low = _mm512_loadu_si512(p), high = _mm512_loadu_si512(p + kBytes);
        for (int64_t k = 1; k < kernel; ++k) {
          low = _mm512_max_epu8(low, _mm512_loadu_si512(p + k));
          high = _mm512_max_epu8(high, _mm512_loadu_si512(p + kBytes + k));
        }
        acc = _mm512_permutex2var_epi8(low, even, high);
      }
      _mm512_mask_storeu_epi8(out + j, Lanes(count - j), acc);
    }
  }
}

}  // namespace

void Avx512MaxPoolUint8Row(const MaxPoolUint8Row& row) {
  const int64_t pad_left = row.cells - row.line;
  if (pad_left + row.width <= kBytes && row.stride * (row.count - 1) + row.kernel <= kBytes &&
      row.kernel <= kMaxRegisterTaps) {
    RegisterRows(row);
  } else {
    LineRows(row);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
