// The 3x3 uint8 depthwise convolution on blocks of 16 interleaved channels
// (DepthwiseUint8BlockKernel) with AVX-512 VNNI. Every int32 lane is one
// channel, so every lane does useful work whatever the plane's width.
//
// For output (oy, ox) and filter row i, the three input positions the row
// reads are 48 contiguous bytes (16 channels each). One 64-byte load, a
// vpermd that puts dword c / 4 of each of the three positions in 128-bit
// lane c / 4 and a vpshufb that interleaves them give, in each channel's
// dword, the bytes (x, x + 1, x + 2, 0); one vpdpbusd against the filter
// row's quads (int8 taps, 0 in the fourth byte) adds the row's three
// products. The accumulators start from the per-channel term (bias minus
// the input zero point times the tap sum), so the uint8 inputs need no
// zero-point subtraction and padding holds the zero point.
//
// The output step is the rule of requantize_avx512.h with each lane's own
// multiplier and shift (vpsrlvq on the even and odd lanes).
#include <cstdint>

#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

struct LaneScales {
  __m512i even_multiplier, odd_multiplier, even_half, odd_half, even_shift, odd_shift;
};

__attribute__((target("avx512bw"))) LaneScales MakeLaneScales(const int32_t* multipliers,
                                                              const int32_t* right_shifts) {
  // 64-bit lane k holds channel 2k (even) or 2k + 1 (odd). As in
  // requantize_avx512.h, (|x| m + 2^(s-1)) >> s is (|x| 2m + 2^s) >> (s + 1),
  // and the odd lanes' results are left in the upper halves by a shift of
  // s - 31 (a multiplier below 1 has s >= 31; a zero multiplier gives 0
  // whatever the shift, vpsrlvq giving 0 for counts of 64 or more).
  alignas(64) int64_t em[8], om[8], eh[8], oh[8], es[8], os[8];
  for (int k = 0; k < 8; ++k) {
    em[k] = int64_t{static_cast<uint32_t>(multipliers[2 * k])} * 2;
    om[k] = int64_t{static_cast<uint32_t>(multipliers[2 * k + 1])} * 2;
    eh[k] = int64_t{1} << right_shifts[2 * k];
    oh[k] = int64_t{1} << right_shifts[2 * k + 1];
    es[k] = right_shifts[2 * k] + 1;
    os[k] = right_shifts[2 * k + 1] - 31;
  }
  LaneScales s;
  s.even_multiplier = _mm512_load_si512(em);
  s.odd_multiplier = _mm512_load_si512(om);
  s.even_half = _mm512_load_si512(eh);
  s.odd_half = _mm512_load_si512(oh);
  s.even_shift = _mm512_load_si512(es);
  s.odd_shift = _mm512_load_si512(os);
  return s;
}

template <bool AboveZero>
__attribute__((target("avx512bw,avx512vnni"))) void Block(const DepthwiseUint8Block& b) {
  const LaneScales s = MakeLaneScales(b.multipliers, b.right_shifts);
  const __m512i zero_point = _mm512_set1_epi32(b.zero_point);
  const __m512i lo = _mm512_set1_epi32(b.lo - b.zero_point);
  const __m512i hi = _mm512_set1_epi32(b.hi - b.zero_point);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i terms = _mm512_loadu_si512(b.terms);
  const __m512i taps0 = _mm512_loadu_si512(b.taps);
  const __m512i taps1 = _mm512_loadu_si512(b.taps + 64);
  const __m512i taps2 = _mm512_loadu_si512(b.taps + 128);
  // 128-bit lane L gathers dword L of the three positions.
  const __m512i gather =
      _mm512_setr_epi32(0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3);
  // Byte 4 j + k of a lane is byte 4 k + j of the gathered ones (k < 3).
  const __m512i interleave = _mm512_broadcast_i32x4(
      _mm_setr_epi8(0, 4, 8, -128, 1, 5, 9, -128, 2, 6, 10, -128, 3, 7, 11, -128));
  const int64_t row_bytes = b.row_stride * 16;
  const int64_t step = b.stride_w * 16;
  for (int64_t oy = 0; oy < b.out_h; ++oy) {
    const uint8_t* r0 = b.input + oy * b.stride_h * row_bytes;
    const uint8_t* r1 = r0 + row_bytes;
    const uint8_t* r2 = r1 + row_bytes;
    uint8_t* out = b.out + oy * b.out_w * 16;
    for (int64_t ox = 0; ox < b.out_w; ++ox) {
      const int64_t at = ox * step;
      __m512i acc = _mm512_dpbusd_epi32(
          terms,
          _mm512_shuffle_epi8(_mm512_permutexvar_epi32(gather, _mm512_loadu_si512(r0 + at)),
                              interleave),
          taps0);
      acc = _mm512_dpbusd_epi32(
          acc,
          _mm512_shuffle_epi8(_mm512_permutexvar_epi32(gather, _mm512_loadu_si512(r1 + at)),
                              interleave),
          taps1);
      acc = _mm512_dpbusd_epi32(
          acc,
          _mm512_shuffle_epi8(_mm512_permutexvar_epi32(gather, _mm512_loadu_si512(r2 + at)),
                              interleave),
          taps2);
      const __m512i magnitude = AboveZero ? _mm512_max_epi32(acc, zero) : _mm512_abs_epi32(acc);
      const __m512i even = _mm512_srlv_epi64(
          _mm512_add_epi64(_mm512_mul_epu32(magnitude, s.even_multiplier), s.even_half),
          s.even_shift);
      const __m512i odd = _mm512_srlv_epi64(
          _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), s.odd_multiplier),
                           s.odd_half),
          s.odd_shift);
      __m512i value = _mm512_mask_blend_epi32(0xAAAA, even, odd);
      if (!AboveZero) {
        value = _mm512_mask_sub_epi32(value, _mm512_cmplt_epi32_mask(acc, zero), zero, value);
      }
      value = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(value, lo), hi), zero_point);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + ox * 16), _mm512_cvtepi32_epi8(value));
    }
  }
}

}  // namespace

void VnniDepthwiseUint8Block(const DepthwiseUint8Block& block) {
  if (block.lo >= block.zero_point) {
    Block<true>(block);
  } else {
    Block<false>(block);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
