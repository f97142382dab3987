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
#include <algorithm>
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

// Transposes 16 rows of 16 bytes: out[j] byte i is in[i] byte j.
__attribute__((always_inline)) inline void Transpose16x16(const __m128i* in, __m128i* out) {
  __m128i a[16], b[16], c[16];
#pragma GCC unroll 16
  for (int k = 0; k < 8; ++k) {
    a[k] = _mm_unpacklo_epi8(in[2 * k], in[2 * k + 1]);
    a[k + 8] = _mm_unpackhi_epi8(in[2 * k], in[2 * k + 1]);
  }
  // a[k + 8 h]: rows 2k, 2k + 1, columns 8h .. 8h + 7.
#pragma GCC unroll 16
  for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 16
    for (int k = 0; k < 4; ++k) {
      b[k + 8 * h] = _mm_unpacklo_epi16(a[2 * k + 8 * h], a[2 * k + 1 + 8 * h]);
      b[k + 4 + 8 * h] = _mm_unpackhi_epi16(a[2 * k + 8 * h], a[2 * k + 1 + 8 * h]);
    }
  }
  // b[k + 4 m]: rows 4k .. 4k + 3, columns 4m .. 4m + 3.
#pragma GCC unroll 16
  for (int m = 0; m < 4; ++m) {
#pragma GCC unroll 16
    for (int j = 0; j < 2; ++j) {
      c[j + 4 * m] = _mm_unpacklo_epi32(b[2 * j + 4 * m], b[2 * j + 1 + 4 * m]);
      c[j + 2 + 4 * m] = _mm_unpackhi_epi32(b[2 * j + 4 * m], b[2 * j + 1 + 4 * m]);
    }
  }
  // c[j + 2 q]: rows 8j .. 8j + 7, columns 2q, 2q + 1.
#pragma GCC unroll 16
  for (int q = 0; q < 8; ++q) {
    out[2 * q] = _mm_unpacklo_epi64(c[2 * q], c[1 + 2 * q]);
    out[2 * q + 1] = _mm_unpackhi_epi64(c[2 * q], c[1 + 2 * q]);
  }
}

// One position's 16 channels into the tile at (y, x) if it lies inside
// the tile's columns, then the next position.
__attribute__((always_inline)) inline void StorePosition(const DepthwiseUint8Block& b,
                                                         uint8_t* origin, __m128i position,
                                                         int64_t* y, int64_t* x) {
  if (*x < b.cols) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(origin + (*y * b.row_stride + *x) * 16), position);
  }
  if (++*x == b.in_w) *x = 0, ++*y;
}

// The input positions [done, b.last) into the tile one by one.
void GatherTail(const DepthwiseUint8Block& b, int64_t done) {
  uint8_t* const origin = b.tile + b.tile_offset;
  for (int64_t at = done; at < b.last; ++at) {
    const int64_t y = at / b.in_w, x = at % b.in_w;
    if (x >= b.cols) continue;
    for (int64_t c = 0; c < b.valid; ++c) {
      origin[(y * b.row_stride + x) * 16 + c] = b.planes[c * b.plane + at];
    }
  }
}

// The staging positions from `done` on back to the output planes one by one.
void ScatterTail(const DepthwiseUint8Block& b, int64_t done) {
  const int64_t count = b.out_h * b.out_w;
  for (int64_t at = done; at < count; ++at) {
    for (int64_t c = 0; c < b.valid; ++c) b.out[c * b.out_plane + at] = b.staging[at * 16 + c];
  }
}

// The input planes into the position-major tile (see DepthwiseUint8Block):
// 16 flat positions of the 16 planes per transpose, the last step
// overlapping the one before it; fewer than 16 positions go one by one.
void Gather(const DepthwiseUint8Block& b) {
  uint8_t* const origin = b.tile + b.tile_offset;
  int64_t done = b.first;
  if (b.last - b.first >= 16) {
    __m128i rows[16], positions[16];
    for (int64_t at = b.first;; at += 16) {
      if (at + 16 > b.last) at = b.last - 16;
#pragma GCC unroll 16
      for (int64_t c = 0; c < 16; ++c) {
        rows[c] =
            c < b.valid
                ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.planes + c * b.plane + at))
                : _mm_setzero_si128();
      }
      Transpose16x16(rows, positions);
      int64_t y = at / b.in_w, x = at % b.in_w;
#pragma GCC unroll 16
      for (int k = 0; k < 16; ++k) {
        StorePosition(b, origin, positions[k], &y, &x);
      }
      if (at + 16 == b.last) break;
    }
    done = b.last;
  }
  GatherTail(b, done);
}

// The staging positions back to the output planes.
void Scatter(const DepthwiseUint8Block& b) {
  const int64_t count = b.out_h * b.out_w;
  int64_t done = 0;
  if (count >= 16) {
    __m128i positions[16], channels[16];
    for (int64_t at = 0;; at += 16) {
      if (at + 16 > count) at = count - 16;
#pragma GCC unroll 16
      for (int k = 0; k < 16; ++k) {
        positions[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.staging + (at + k) * 16));
      }
      Transpose16x16(positions, channels);
#pragma GCC unroll 16
      for (int64_t c = 0; c < b.valid; ++c) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(b.out + c * b.out_plane + at), channels[c]);
      }
      if (at + 16 == count) break;
    }
    done = count;
  }
  ScatterTail(b, done);
}

// The same two moves with AVX-512 VBMI: four registers hold the 16 x 16
// bytes (register k, 128-bit lane L: row 4k + L), and the transposed
// register j (lane q: column 4j + q) is two vpermt2b over registers 0-1
// and 2-3 (rows 0-7 and 8-15) merged per byte: 12 shuffles per 16 x 16
// bytes instead of 64 unpacks.
struct VbmiTranspose {
  __m512i index[4];
};

VbmiTranspose MakeVbmiTranspose() {
  VbmiTranspose t;
  for (int j = 0; j < 4; ++j) {
    alignas(64) uint8_t bytes[64];
    for (int q = 0; q < 4; ++q) {
      for (int c = 0; c < 16; ++c) {
        bytes[q * 16 + c] = static_cast<uint8_t>((c % 8) / 4 * 64 + (c % 4) * 16 + 4 * j + q);
      }
    }
    t.index[j] = _mm512_load_si512(bytes);
  }
  return t;
}

__attribute__((target("avx512bw,avx512vbmi"), always_inline)) inline void VbmiTranspose16x16(
    const VbmiTranspose& t, const __m512i* in, __m512i* out) {
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const __m512i low = _mm512_permutex2var_epi8(in[0], t.index[j], in[1]);
    const __m512i high = _mm512_permutex2var_epi8(in[2], t.index[j], in[3]);
    out[j] = _mm512_mask_blend_epi8(0xFF00FF00FF00FF00ull, low, high);
  }
}

// Lane quarter `l` of `r` replaced by `v`. The instruction takes the
// quarter as an immediate: the switch folds away where the caller's loop is
// unrolled, and keeps unoptimized builds compiling.
__attribute__((target("avx512f"), always_inline)) inline __m512i InsertQuarter(__m512i r,
                                                                               __m128i v, int l) {
  switch (l) {
    case 0:
      return _mm512_inserti32x4(r, v, 0);
    case 1:
      return _mm512_inserti32x4(r, v, 1);
    case 2:
      return _mm512_inserti32x4(r, v, 2);
    default:
      return _mm512_inserti32x4(r, v, 3);
  }
}

__attribute__((target("avx512bw,avx512vbmi"))) void VbmiGather(const DepthwiseUint8Block& b) {
  uint8_t* const origin = b.tile + b.tile_offset;
  int64_t done = b.first;
  if (b.last - b.first >= 16) {
    const VbmiTranspose t = MakeVbmiTranspose();
    __m512i rows[4], positions[4];
    for (int64_t at = b.first;; at += 16) {
      if (at + 16 > b.last) at = b.last - 16;
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        __m512i r = _mm512_setzero_si512();
#pragma GCC unroll 4
        for (int l = 0; l < 4; ++l) {
          const int64_t c = 4 * k + l;
          if (c < b.valid) {
            r = InsertQuarter(
                r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.planes + c * b.plane + at)),
                l);
          }
        }
        rows[k] = r;
      }
      VbmiTranspose16x16(t, rows, positions);
      int64_t y = at / b.in_w, x = at % b.in_w;
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        if (x + 4 <= std::min(b.cols, b.in_w)) {
          // Four positions of one row, all inside the tile.
          _mm512_storeu_si512(origin + (y * b.row_stride + x) * 16, positions[j]);
          x += 4;
          if (x == b.in_w) x = 0, ++y;
          continue;
        }
        __m128i lanes[4] = {_mm512_castsi512_si128(positions[j]),
                            _mm512_extracti32x4_epi32(positions[j], 1),
                            _mm512_extracti32x4_epi32(positions[j], 2),
                            _mm512_extracti32x4_epi32(positions[j], 3)};
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
          StorePosition(b, origin, lanes[q], &y, &x);
        }
      }
      if (at + 16 == b.last) break;
    }
    done = b.last;
  }
  GatherTail(b, done);
}

__attribute__((target("avx512bw,avx512vbmi"))) void VbmiScatter(const DepthwiseUint8Block& b) {
  const int64_t count = b.out_h * b.out_w;
  int64_t done = 0;
  if (count >= 16) {
    const VbmiTranspose t = MakeVbmiTranspose();
    __m512i positions[4], channels[4];
    for (int64_t at = 0;; at += 16) {
      if (at + 16 > count) at = count - 16;
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) positions[j] = _mm512_loadu_si512(b.staging + (at + 4 * j) * 16);
      VbmiTranspose16x16(t, positions, channels);
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        __m128i lanes[4] = {_mm512_castsi512_si128(channels[k]),
                            _mm512_extracti32x4_epi32(channels[k], 1),
                            _mm512_extracti32x4_epi32(channels[k], 2),
                            _mm512_extracti32x4_epi32(channels[k], 3)};
#pragma GCC unroll 4
        for (int l = 0; l < 4; ++l) {
          const int64_t c = 4 * k + l;
          if (c < b.valid) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(b.out + c * b.out_plane + at), lanes[l]);
          }
        }
      }
      if (at + 16 == count) break;
    }
    done = count;
  }
  ScatterTail(b, done);
}

struct BlockConstants {
  LaneScales scales;
  __m512i zero_point_words, lo_bytes, hi_bytes, by_output, terms, taps[3], gather, interleave;
};

// The 16 channels' bytes (x, x + 1, x + 2, 0) of the three positions
// from `at`, one dword per channel.
__attribute__((target("avx512bw"), always_inline)) inline __m512i Expand(const uint8_t* at,
                                                                         const BlockConstants& k) {
  return _mm512_shuffle_epi8(_mm512_permutexvar_epi32(k.gather, _mm512_loadu_si512(at)),
                             k.interleave);
}

// The requantized values of acc before the clamp and the zero point.
template <bool AboveZero>
__attribute__((target("avx512bw"), always_inline)) inline __m512i Value(__m512i acc,
                                                                        const LaneScales& s) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i magnitude = AboveZero ? _mm512_max_epi32(acc, zero) : _mm512_abs_epi32(acc);
  const __m512i even = _mm512_srlv_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(magnitude, s.even_multiplier), s.even_half), s.even_shift);
  const __m512i odd = _mm512_srlv_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), s.odd_multiplier),
                       s.odd_half),
      s.odd_shift);
  __m512i value = _mm512_mask_blend_epi32(0xAAAA, even, odd);
  if (!AboveZero) {
    value = _mm512_mask_sub_epi32(value, _mm512_cmplt_epi32_mask(acc, zero), zero, value);
  }
  return value;
}

// Up to four outputs' values (Rows of them; the rest repeat the first)
// clamped and narrowed together: packed to int16 with signed saturation,
// the zero point added with saturation, packed to uint8 with unsigned
// saturation, each output's 16 bytes gathered into one 128-bit lane and
// clamped to [lo, hi] on bytes. The saturations only move values already
// outside 0 .. 255 (the zero point is 0 .. 255), so the bytes are those of
// the int32 clamp. Narrow returns the four outputs' 16 bytes in order;
// StoreOutputs writes output r to out + r * step.
template <int Rows>
__attribute__((target("avx512bw"), always_inline)) inline __m512i Narrow(const __m512i* values,
                                                                         const BlockConstants& k) {
  const __m512i v1 = Rows > 1 ? values[1] : values[0];
  const __m512i v2 = Rows > 2 ? values[2] : values[0];
  const __m512i v3 = Rows > 3 ? values[3] : values[0];
  const __m512i low = _mm512_adds_epi16(_mm512_packs_epi32(values[0], v1), k.zero_point_words);
  const __m512i high = _mm512_adds_epi16(_mm512_packs_epi32(v2, v3), k.zero_point_words);
  // 128-bit lane i now holds dword i of each output, in dwords 0 to 3.
  const __m512i bytes = _mm512_permutexvar_epi32(k.by_output, _mm512_packus_epi16(low, high));
  return _mm512_min_epu8(_mm512_max_epu8(bytes, k.lo_bytes), k.hi_bytes);
}

template <int Rows>
__attribute__((target("avx512bw"), always_inline)) inline void StoreOutputs(
    const __m512i* values, const BlockConstants& k, uint8_t* out, int64_t step) {
  const __m512i clamped = Narrow<Rows>(values, k);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_castsi512_si128(clamped));
  if (Rows > 1) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + step),
                     _mm512_extracti32x4_epi32(clamped, 1));
  }
  if (Rows > 2) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * step),
                     _mm512_extracti32x4_epi32(clamped, 2));
  }
  if (Rows > 3) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * step),
                     _mm512_extracti32x4_epi32(clamped, 3));
  }
}

// Rows output rows from `oy` at vertical stride Stride: each input row's
// expanded vector feeds every output row whose window holds it (at stride
// 1, three rows of outputs share 5 input rows instead of reading 9).
template <bool AboveZero, int Stride, int Rows>
__attribute__((target("avx512bw,avx512vnni"))) void BlockRows(const DepthwiseUint8Block& b,
                                                              const BlockConstants& k, int64_t oy) {
  constexpr int kInputRows = (Rows - 1) * Stride + 3;
  const int64_t row_bytes = b.row_stride * 16;
  const int64_t step = b.stride_w * 16;
  const uint8_t* in = b.tile + oy * Stride * row_bytes;
  uint8_t* out = b.staging + oy * b.out_w * 16;
  for (int64_t ox = 0; ox < b.out_w; ++ox) {
    __m512i acc[Rows];
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) acc[r] = k.terms;
#pragma GCC unroll 8
    for (int i = 0; i < kInputRows; ++i) {
      const __m512i e = Expand(in + i * row_bytes + ox * step, k);
#pragma GCC unroll 4
      for (int r = 0; r < Rows; ++r) {
        const int tap = i - r * Stride;
        if (tap >= 0 && tap < 3) acc[r] = _mm512_dpbusd_epi32(acc[r], e, k.taps[tap]);
      }
    }
    __m512i values[Rows];
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) values[r] = Value<AboveZero>(acc[r], k.scales);
    StoreOutputs<Rows>(values, k, out + ox * 16, b.out_w * 16);
  }
}

// The output constants of Narrow.
__attribute__((target("avx512bw"), always_inline)) inline void SetNarrowing(int32_t zero_point,
                                                                           int32_t lo, int32_t hi,
                                                                           BlockConstants* k) {
  k->zero_point_words = _mm512_set1_epi16(static_cast<int16_t>(zero_point));
  k->lo_bytes = _mm512_set1_epi8(static_cast<char>(lo));
  k->hi_bytes = _mm512_set1_epi8(static_cast<char>(hi));
  k->by_output = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
}

template <bool AboveZero, int Stride>
__attribute__((target("avx512bw,avx512vnni"))) void Block(const DepthwiseUint8Block& b) {
  BlockConstants k;
  k.scales = MakeLaneScales(b.multipliers, b.right_shifts);
  SetNarrowing(b.zero_point, b.lo, b.hi, &k);
  k.terms = _mm512_loadu_si512(b.terms);
  for (int i = 0; i < 3; ++i) k.taps[i] = _mm512_loadu_si512(b.taps + 64 * i);
  // 128-bit lane L gathers dword L of the three positions.
  k.gather = _mm512_setr_epi32(0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3);
  // Byte 4 j + t of a lane is byte 4 t + j of the gathered ones (t < 3).
  k.interleave = _mm512_broadcast_i32x4(
      _mm_setr_epi8(0, 4, 8, -128, 1, 5, 9, -128, 2, 6, 10, -128, 3, 7, 11, -128));
  constexpr int kRows = Stride == 1 ? 3 : 2;
  int64_t oy = 0;
  for (; oy + kRows <= b.out_h; oy += kRows) BlockRows<AboveZero, Stride, kRows>(b, k, oy);
  for (; oy < b.out_h; ++oy) BlockRows<AboveZero, Stride, 1>(b, k, oy);
}

template <void (*GatherFn)(const DepthwiseUint8Block&),
          void (*ScatterFn)(const DepthwiseUint8Block&)>
void RunBlock(const DepthwiseUint8Block& block) {
  GatherFn(block);
  const bool above_zero = block.lo >= block.zero_point;
  if (block.stride_h == 1) {
    above_zero ? Block<true, 1>(block) : Block<false, 1>(block);
  } else {
    above_zero ? Block<true, 2>(block) : Block<false, 2>(block);
  }
  ScatterFn(block);
}

// The planar kernel (DepthwiseUint8PlanarKernel): per filter row, one
// vpermb (64-byte window) or vpermi2b (128 bytes) builds each output's
// (x, x + 1, x + 2, padding) bytes from a window of the channel's plane
// (the steps' indices; bytes outside the input take the index byte, the
// input zero point), and one vpdpbusd adds the row's products. Four vectors of 16 outputs are requantized,
// narrowed together and stored with a byte mask: no transposes, no tile.
template <bool AboveZero, bool Wide>
__attribute__((target("avx512bw,avx512vnni,avx512vbmi"))) void Planar(
    const DepthwiseUint8Planar& p) {
  BlockConstants k;
  SetNarrowing(p.zero_point, p.lo, p.hi, &k);
  const int64_t vectors = (p.out_plane + 15) / 16;
  // Planes of at most one window are loaded once per channel (masked to
  // the plane); larger ones per step from the step's base, inside the plane.
  const bool whole = p.in_plane <= (Wide ? 128 : 64);
  const __mmask64 low_mask = p.in_plane >= 64 ? ~__mmask64{0}
                                              : (__mmask64{1} << p.in_plane) - 1;
  const __mmask64 high_mask = p.in_plane >= 128  ? ~__mmask64{0}
                              : p.in_plane <= 64 ? 0
                                                 : (__mmask64{1} << (p.in_plane - 64)) - 1;
  for (int64_t c = 0; c < p.channels; ++c) {
    const uint8_t* in = p.in + c * p.in_plane;
    uint8_t* out = p.out + c * p.out_plane;
    __m512i window_low = _mm512_setzero_si512(), window_high = _mm512_setzero_si512();
    if (whole) {
      window_low = _mm512_maskz_loadu_epi8(low_mask, in);
      if (Wide && high_mask != 0) window_high = _mm512_maskz_loadu_epi8(high_mask, in + 64);
    }
    __m512i taps[3];
    for (int i = 0; i < 3; ++i) taps[i] = _mm512_set1_epi32(p.quads[3 * c + i]);
    const __m512i term = _mm512_set1_epi32(p.terms[c]);
    const DepthwiseUint8PlanarScale& scale = p.scales[c];
    LaneScales s;
    s.even_multiplier = s.odd_multiplier = _mm512_set1_epi64(scale.multiplier2);
    s.even_half = s.odd_half = _mm512_set1_epi64(scale.half);
    s.even_shift = _mm512_set1_epi64(scale.even_shift);
    s.odd_shift = _mm512_set1_epi64(scale.odd_shift);
    for (int64_t v0 = 0; v0 < vectors; v0 += 4) {
      const int64_t used = std::min<int64_t>(4, vectors - v0);
      __m512i values[4];
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
        if (r >= used) {
          values[r] = values[0];
          continue;
        }
        __m512i acc = term;
        const DepthwiseUint8PlanarStep* step = p.steps + (v0 + r) * 3;
#pragma GCC unroll 3
        for (int i = 0; i < 3; ++i) {
          __m512i low = window_low, high = window_high;
          if (!whole) {
            low = _mm512_loadu_si512(in + step[i].base);
            if (Wide) high = _mm512_loadu_si512(in + step[i].base + 64);
          }
          const DepthwiseUint8PlanarPattern& pattern = *step[i].pattern;
          const __m512i index = _mm512_loadu_si512(pattern.index);
          const __m512i bytes =
              Wide ? _mm512_mask2_permutex2var_epi8(low, index, pattern.inside, high)
                   : _mm512_mask_permutexvar_epi8(index, pattern.inside, index, low);
          acc = _mm512_dpbusd_epi32(acc, bytes, taps[i]);
        }
        values[r] = Value<AboveZero>(acc, s);
      }
      const int64_t left = p.out_plane - v0 * 16;
      const __mmask64 store = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
      _mm512_mask_storeu_epi8(out + v0 * 16, store, Narrow<4>(values, k));
    }
  }
}

}  // namespace

void VbmiDepthwiseUint8Planar(const DepthwiseUint8Planar& planar) {
  if (planar.window == 64) {
    planar.lo >= planar.zero_point ? Planar<true, false>(planar) : Planar<false, false>(planar);
  } else {
    planar.lo >= planar.zero_point ? Planar<true, true>(planar) : Planar<false, true>(planar);
  }
}

void VnniDepthwiseUint8Block(const DepthwiseUint8Block& block) {
  RunBlock<Gather, Scatter>(block);
}

void VbmiDepthwiseUint8Block(const DepthwiseUint8Block& block) {
  RunBlock<VbmiGather, VbmiScatter>(block);
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
