// The implicit-GEMM uint8 convolution with AVX-512 VNNI
// (QuantizedConvTapsKernel): no im2col. The B operand of a word (quad q,
// tap t) for 32 consecutive flat positions is two 64-byte loads from the
// packed input at q * quad_stride + tap_offsets[t] + p, so the packed input
// is read in place, once per tap, instead of being copied nine times.
//
// Register blocking as in quantized_gemm_vnni_avx512.cc: a tile is 12 rows
// x 32 flat positions, 24 int32 accumulators, the two input vectors of a
// word, and each filter word broadcast from memory into vpdpbusd; the last
// tile of a row range has 4 or 8 rows. Columns outside, rows inside, so
// the input a strip reads (every quad, every tap) stays in L1 while all
// the filter rows pass over it.
//
// The output step is fused: the accumulators are requantized in registers
// (requantize_avx512.h) and stored as bytes. A 16-position group of flat
// positions may cross output rows and hold the positions past out_w that
// the flat layout computes and drops, so each group is stored in pieces,
// one per output row it touches, each a masked 16-byte store at the address
// that puts its lanes in place.
//
// Avx512QuantizedQuadPack interleaves four channel rows into quads; with
// AVX-512 VBMI (checked at run time) 64 positions at a time by byte
// permutes, the last step under masks, else 16 by zero-extension, shifts
// and ors with a scalar tail.
#include <algorithm>

#include "mace/ops/x86/avx512_kernels.h"
#include "mace/ops/x86/requantize_avx512.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int kTileCols = 32;
constexpr int kTileRows = kQuantConvRows;

// The stores of one 16-position group: piece k writes the lanes of
// masks[k] to out_row + offsets[k] + lane (out_row: one output plane).
struct GroupPieces {
  int count = 0;
  int64_t offsets[17];
  __mmask16 masks[17];
};

// Flat width is at least 1, so a group of 16 touches at most 17 output rows.
inline void MakePieces(const QuantizedConvTaps& conv, int64_t first, GroupPieces* pieces) {
  pieces->count = 0;
  const int64_t width = conv.flat_width;
  for (int64_t lane = 0; lane < 16;) {
    const int64_t p = first + lane;
    const int64_t oh = p / width, ow = p - oh * width;
    if (oh >= conv.out_h) break;
    const int64_t run = std::min<int64_t>(16 - lane, width - ow);
    const int64_t valid = ow < conv.out_w ? std::min<int64_t>(run, conv.out_w - ow) : 0;
    if (valid > 0) {
      pieces->offsets[pieces->count] = oh * conv.out_w + ow - lane;
      pieces->masks[pieces->count] = static_cast<__mmask16>(((1u << valid) - 1) << lane);
      ++pieces->count;
    }
    lane += run;
  }
}

// The accumulators start from each row's term (sums modulo 2^32, so the
// order of the additions does not matter); ColumnTerms adds the
// per-position terms after the reduction, and AboveZero picks the output
// step for a clamp whose low end is at or above the zero point. Without
// Wide the tile is 16 positions (the high group has nothing to store).
template <int Rows, bool Wide, bool ColumnTerms, bool AboveZero>
__attribute__((target("avx512vnni"), always_inline)) inline void ConvTile(
    const QuantizedConvTaps& conv, int64_t row0, int64_t col0, const GroupPieces& low,
    const GroupPieces& high) {
  __m512i acc0[Rows], acc1[Rows];
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    // Rows past the valid ones may have no term.
    acc0[r] = row0 + r < conv.output.valid_rows
                  ? _mm512_set1_epi32(conv.output.row_terms[row0 + r])
                  : _mm512_setzero_si512();
    acc1[r] = acc0[r];
  }
  const int64_t words = conv.quads * conv.taps;
  // The block's words, each with its Rows weights adjacent.
  const int32_t* a = conv.filter + row0 * words;
  const int32_t* quad = conv.input + col0;
  for (int64_t q = 0; q < conv.quads; ++q, quad += conv.quad_stride) {
    for (int64_t t = 0; t < conv.taps; ++t, a += Rows) {
      const int32_t* b = quad + conv.tap_offsets[t];
      const __m512i x0 = _mm512_loadu_si512(b);
      const __m512i x1 = Wide ? _mm512_loadu_si512(b + 16) : x0;
#pragma GCC unroll 12
      for (int r = 0; r < Rows; ++r) {
        const __m512i w = _mm512_set1_epi32(a[r]);
        acc0[r] = _mm512_dpbusd_epi32(acc0[r], x0, w);
        if (Wide) acc1[r] = _mm512_dpbusd_epi32(acc1[r], x1, w);
      }
    }
  }
  if (ColumnTerms) {
    const __m512i terms0 = _mm512_loadu_si512(conv.output.column_terms + col0);
    const __m512i terms1 =
        Wide ? _mm512_loadu_si512(conv.output.column_terms + col0 + 16) : terms0;
#pragma GCC unroll 12
    for (int r = 0; r < Rows; ++r) {
      acc0[r] = _mm512_add_epi32(acc0[r], terms0);
      if (Wide) acc1[r] = _mm512_add_epi32(acc1[r], terms1);
    }
  }
  const Avx512RequantizeClamp clamp =
      Avx512MakeRequantizeClamp(conv.output.zero_point, conv.output.lo, conv.output.hi);
  const int64_t plane = conv.out_h * conv.out_w;
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    const int64_t row = row0 + r;
    if (row >= conv.output.valid_rows) break;
    const Avx512RequantizeScale scale =
        Avx512MakeRequantizeScale(conv.output.multipliers[row], conv.output.right_shifts[row]);
    const __m512i y0 = Avx512RequantizeAs<AboveZero>(acc0[r], scale, clamp);
    uint8_t* out = conv.output.out + row * plane;
    for (int k = 0; k < low.count; ++k) {
      _mm512_mask_cvtepi32_storeu_epi8(out + low.offsets[k], low.masks[k], y0);
    }
    if (!Wide) continue;
    const __m512i y1 = Avx512RequantizeAs<AboveZero>(acc1[r], scale, clamp);
    for (int k = 0; k < high.count; ++k) {
      _mm512_mask_cvtepi32_storeu_epi8(out + high.offsets[k], high.masks[k], y1);
    }
  }
}

// The row tiles of one strip, from row_begin to `last`.
template <bool Wide, bool ColumnTerms, bool AboveZero>
__attribute__((target("avx512vnni"), always_inline)) inline void Rows(
    const QuantizedConvTaps& conv, int64_t col, int64_t last, const GroupPieces& low,
    const GroupPieces& high) {
  int64_t row = conv.row_begin;
  for (; row + kTileRows <= last; row += kTileRows) {
    ConvTile<kTileRows, Wide, ColumnTerms, AboveZero>(conv, row, col, low, high);
  }
  // Multiples of 4: what is left is 0, 4 or 8 rows.
  if (last - row == 8) {
    ConvTile<8, Wide, ColumnTerms, AboveZero>(conv, row, col, low, high);
  } else if (last - row == 4) {
    ConvTile<4, Wide, ColumnTerms, AboveZero>(conv, row, col, low, high);
  }
}

template <bool ColumnTerms, bool AboveZero>
__attribute__((target("avx512vnni"))) void ConvStrips(const QuantizedConvTaps& conv) {
  GroupPieces low, high;
  for (int64_t col = conv.col_begin; col < conv.col_end; col += kTileCols) {
    MakePieces(conv, col, &low);
    MakePieces(conv, col + 16, &high);
    if (low.count + high.count == 0) continue;
    const int64_t last = std::min(conv.row_end, (conv.output.valid_rows + 3) / 4 * 4);
    if (high.count == 0) {
      Rows<false, ColumnTerms, AboveZero>(conv, col, last, low, high);
    } else {
      Rows<true, ColumnTerms, AboveZero>(conv, col, last, low, high);
    }
  }
}

}  // namespace

__attribute__((target("avx512vnni"))) void VnniQuantizedConvTaps(const QuantizedConvTaps& conv) {
  const bool above_zero = conv.output.lo >= conv.output.zero_point;
  if (conv.output.column_terms != nullptr) {
    if (above_zero) {
      ConvStrips<true, true>(conv);
    } else {
      ConvStrips<true, false>(conv);
    }
  } else if (above_zero) {
    ConvStrips<false, true>(conv);
  } else {
    ConvStrips<false, false>(conv);
  }
}

namespace {

// The byte indices of the quad packing's two-source permutes (vpermt2b,
// index bit 6 picks the second source): `evens` takes the even bytes of
// two registers (128 bytes of a stride-2 row), pairs interleave bytes j of
// two rows (positions 0-31 or 32-63 of 64), quads interleave the byte
// pairs of positions 0-15 or 16-31 of two pair registers.
struct QuadPackIndices {
  alignas(64) uint8_t evens[64];
  alignas(64) uint8_t pairs_low[64];
  alignas(64) uint8_t pairs_high[64];
  alignas(64) uint8_t quads_low[64];
  alignas(64) uint8_t quads_high[64];
};

constexpr QuadPackIndices MakeQuadPackIndices() {
  QuadPackIndices t{};
  for (int j = 0; j < 64; ++j) t.evens[j] = static_cast<uint8_t>(2 * j);
  for (int j = 0; j < 32; ++j) {
    t.pairs_low[2 * j] = static_cast<uint8_t>(j);
    t.pairs_low[2 * j + 1] = static_cast<uint8_t>(64 + j);
    t.pairs_high[2 * j] = static_cast<uint8_t>(32 + j);
    t.pairs_high[2 * j + 1] = static_cast<uint8_t>(96 + j);
  }
  for (int i = 0; i < 16; ++i) {
    for (int l = 0; l < 4; ++l) {
      const int from = (l < 2 ? 0 : 64) + (l & 1);
      t.quads_low[4 * i + l] = static_cast<uint8_t>(from + 2 * i);
      t.quads_high[4 * i + l] = static_cast<uint8_t>(from + 2 * (16 + i));
    }
  }
  return t;
}

constexpr QuadPackIndices kQuadPackIndices = MakeQuadPackIndices();

// The low `bytes` bytes (clamped to [0, 64]).
inline __mmask64 ByteMask(int64_t bytes) {
  if (bytes >= 64) return ~__mmask64{0};
  if (bytes <= 0) return 0;
  return (__mmask64{1} << bytes) - 1;
}

// The low `words` of 16 lanes (clamped to [0, 16]).
inline __mmask16 WordMask(int64_t words) {
  if (words >= 16) return 0xFFFF;
  if (words <= 0) return 0;
  return static_cast<__mmask16>((1u << words) - 1);
}

// Positions [i, i + n) of one row (n <= 64) as bytes 0 .. n - 1, reading
// only bytes the row holds (Step * (count - 1) is its last) where `tail`;
// lanes past n are 0. A stride-2 row's 128 bytes give their even bytes.
template <int Step>
__attribute__((target("avx512bw,avx512vbmi"), always_inline)) inline __m512i LoadQuadRow(
    const uint8_t* row, int64_t i, int64_t n, bool tail, __m512i evens) {
  if (Step == 1) {
    return tail ? _mm512_maskz_loadu_epi8(ByteMask(n), row + i) : _mm512_loadu_si512(row + i);
  }
  const uint8_t* at = row + 2 * i;
  if (!tail) {
    return _mm512_permutex2var_epi8(_mm512_loadu_si512(at), evens, _mm512_loadu_si512(at + 64));
  }
  // Bytes 0 .. 2 (n - 1) of the run.
  const int64_t bytes = 2 * n - 1;
  return _mm512_permutex2var_epi8(_mm512_maskz_loadu_epi8(ByteMask(bytes), at), evens,
                                  _mm512_maskz_loadu_epi8(ByteMask(bytes - 64), at + 64));
}

// Every position with AVX-512 VBMI, 64 at a time: four row loads (at
// stride 2, two loads and one permute to the even bytes each), eight byte
// permutes (rows 0 and 1, and 2 and 3, into byte pairs, then the pairs
// into quads) and four stores, where the widening loop below takes 16
// zero-extensions, 16 shifts and 16 ors. The last step reads and writes
// under masks. A full step at stride 2 reads 127 bytes from 2i, so it
// runs only while 64 more positions follow.
template <int Step>
__attribute__((target("avx512bw,avx512vbmi"))) void VbmiQuadPack(const uint8_t* const* rows,
                                                                 int64_t count, int32_t* dst) {
  const __m512i evens = _mm512_load_si512(kQuadPackIndices.evens);
  const __m512i pairs_low = _mm512_load_si512(kQuadPackIndices.pairs_low);
  const __m512i pairs_high = _mm512_load_si512(kQuadPackIndices.pairs_high);
  const __m512i quads_low = _mm512_load_si512(kQuadPackIndices.quads_low);
  const __m512i quads_high = _mm512_load_si512(kQuadPackIndices.quads_high);
  for (int64_t i = 0; i < count; i += 64) {
    const int64_t n = std::min<int64_t>(64, count - i);
    const bool tail = Step == 1 ? n < 64 : i + 64 >= count;
    const __m512i r0 = LoadQuadRow<Step>(rows[0], i, n, tail, evens);
    const __m512i r1 = LoadQuadRow<Step>(rows[1], i, n, tail, evens);
    const __m512i r2 = LoadQuadRow<Step>(rows[2], i, n, tail, evens);
    const __m512i r3 = LoadQuadRow<Step>(rows[3], i, n, tail, evens);
    const __m512i low01 = _mm512_permutex2var_epi8(r0, pairs_low, r1);
    const __m512i low23 = _mm512_permutex2var_epi8(r2, pairs_low, r3);
    const __m512i high01 = _mm512_permutex2var_epi8(r0, pairs_high, r1);
    const __m512i high23 = _mm512_permutex2var_epi8(r2, pairs_high, r3);
    const __m512i words[4] = {_mm512_permutex2var_epi8(low01, quads_low, low23),
                              _mm512_permutex2var_epi8(low01, quads_high, low23),
                              _mm512_permutex2var_epi8(high01, quads_low, high23),
                              _mm512_permutex2var_epi8(high01, quads_high, high23)};
    if (!tail || n == 64) {
      for (int k = 0; k < 4; ++k) _mm512_storeu_si512(dst + i + 16 * k, words[k]);
      continue;
    }
    for (int k = 0; k < 4; ++k) {
      _mm512_mask_storeu_epi32(dst + i + 16 * k, WordMask(n - 16 * k), words[k]);
    }
  }
}

}  // namespace

void VbmiQuantizedQuadPack(const uint8_t* const* rows, int64_t step, int64_t count,
                           int32_t* dst) {
  if (step == 1) {
    VbmiQuadPack<1>(rows, count, dst);
  } else if (step == 2) {
    VbmiQuadPack<2>(rows, count, dst);
  } else {
    Avx512QuantizedQuadPack(rows, step, count, dst);
  }
}

void Avx512QuantizedQuadPack(const uint8_t* const* rows, int64_t step, int64_t count,
                             int32_t* dst) {
  int64_t i = 0;
  if (step == 1) {
    for (; i + 16 <= count; i += 16) {
      __m512i word = _mm512_setzero_si512();
      for (int l = 0; l < 4; ++l) {
        const __m512i lane = _mm512_cvtepu8_epi32(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[l] + i)));
        word = _mm512_or_si512(word, _mm512_slli_epi32(lane, 8 * l));
      }
      _mm512_storeu_si512(dst + i, word);
    }
  } else if (step == 2) {
    // 16 even bytes: 32 bytes read as 16 uint16, each keeping its low byte.
    // The last pair's odd byte must be readable: index 2 * (i + 15) + 1.
    const __m512i low_byte = _mm512_set1_epi32(0xFF);
    for (; i + 16 < count; i += 16) {
      __m512i word = _mm512_setzero_si512();
      for (int l = 0; l < 4; ++l) {
        const __m512i pairs = _mm512_cvtepu16_epi32(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[l] + 2 * i)));
        word = _mm512_or_si512(word, _mm512_slli_epi32(_mm512_and_si512(pairs, low_byte), 8 * l));
      }
      _mm512_storeu_si512(dst + i, word);
    }
  }
  for (; i < count; ++i) {
    const int64_t at = step * i;
    dst[i] = static_cast<int32_t>(uint32_t{rows[0][at]} | (uint32_t{rows[1][at]} << 8) |
                                  (uint32_t{rows[2][at]} << 16) | (uint32_t{rows[3][at]} << 24));
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
