// AVX-512 BW and VBMI uint8 max pooling rows (MaxPoolUint8RowKernel), 64
// bytes per step with masked loads and stores, so no row needs a scalar
// or buffered tail.
//
// A row whose windows read only its first 128 cells (64: one vector, else
// two) and that has at most 64 outputs (SqueezeNet's 111-, 55- and 27-wide inputs
// at stride 2, ResNet's 112) stays in registers: its window rows are
// reduced by masked loads that read zeros past the width, and tap k of
// every output is one vpermb (vpermt2b for two vectors) with indices
// stride * j + k - pad_left, lanes whose index falls in the left padding
// zeroed by the mask (the padding's 0 never wins a max over a window that
// holds an input). Wider rows go through the line as the AVX2
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

// Rows whose taps all read cells below 64 (kTwo false) or 128 (kTwo true),
// with at most 64 outputs and kMaxRegisterTaps taps: the cells stay in one
// or two vectors, and tap k of output j is cell stride * j + k - pad_left,
// through vpermb or vpermt2b. For the outputs the index lies in [-128,
// 127], so its byte is that number as signed: below 0 it falls in the left
// padding and the mask zeroes it; at or past the width it reads a lane the
// masked loads zeroed.
template <bool kTwo>
__attribute__((target("avx512bw,avx512vbmi"))) inline __m512i Tap(__mmask64 inside,
                                                                  __m512i index, __m512i low,
                                                                  __m512i high) {
  return kTwo ? _mm512_maskz_permutex2var_epi8(inside, low, index, high)
              : _mm512_maskz_permutexvar_epi8(inside, index, low);
}

template <bool kTwo>
__attribute__((target("avx512bw,avx512vbmi"))) void RegisterRows(const MaxPoolUint8Row& row) {
  const int64_t pad_left = row.cells - row.line;
  __m512i index[kMaxRegisterTaps];
  __mmask64 inside[kMaxRegisterTaps];
  const __m512i iota = _mm512_load_si512(kIota);
  __m512i at = _mm512_sub_epi8(row.stride == 2 ? _mm512_add_epi8(iota, iota) : iota,
                               _mm512_set1_epi8(static_cast<char>(pad_left)));
  for (int64_t k = 0; k < row.kernel; ++k) {
    index[k] = at;
    inside[k] = _mm512_cmpge_epi8_mask(at, _mm512_setzero_si512());
    at = _mm512_add_epi8(at, _mm512_set1_epi8(1));
  }
  const __mmask64 low_cells = Lanes(row.width), outputs = Lanes(row.count);
  const __mmask64 high_cells = kTwo ? Lanes(std::max<int64_t>(row.width - kBytes, 0)) : 0;
  for (int64_t r = 0; r < row.out_rows; ++r) {
    const int64_t offset = r * row.input_step;
    const __m512i low = Reduce(row, offset, low_cells);
    const __m512i high = kTwo ? Reduce(row, offset + kBytes, high_cells) : low;
    __m512i acc = Tap<kTwo>(inside[0], index[0], low, high);
    for (int64_t k = 1; k < row.kernel; ++k) {
      acc = _mm512_max_epu8(acc, Tap<kTwo>(inside[k], index[k], low, high));
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
  // One past the last cell an output's window reads.
  const int64_t reach = row.stride * (row.count - 1) + row.kernel - pad_left;
  if (row.count <= kBytes && row.kernel <= kMaxRegisterTaps && pad_left <= kBytes &&
      row.width <= kBytes && reach <= kBytes) {
    RegisterRows<false>(row);
  } else if (row.count <= kBytes && row.kernel <= kMaxRegisterTaps && pad_left <= 2 * kBytes &&
             row.width <= 2 * kBytes && reach <= 2 * kBytes) {
    RegisterRows<true>(row);
  } else {
    LineRows(row);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
