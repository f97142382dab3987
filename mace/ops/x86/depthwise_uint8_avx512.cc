// AVX-512 rows of a 3x3 uint8 depthwise convolution (DepthwiseUint8RowKernel)
// on vpmaddwd: the int16 inputs, read as int32 words of two neighbours,
// times the taps paired the same way, (t0, t1) and (t2, 0), give each output
// row's three products in two multiply-adds, exactly in int32 (|inputs| and
// |taps| are at most 255).
//
// Stride 1: the words at x and x + 2 give the outputs at even offsets from
// x, the words at x + 1 and x + 3 those at odd offsets; a two-source permute
// interleaves them, 32 outputs per step, then at most one step of 16 on
// ymm. Stride 2: the words at 2x and 2x + 2 give 16 consecutive outputs
// directly. Shorter rows (the outputs are padded to 8) finish with the same
// arithmetic on xmm or ymm registers, so
// nothing is read past what the interface allows.
//
// vpmaddwd on zmm needs AVX-512 BW, which the rest of this library does not
// assume: the functions carry it as a target attribute, and the kernel table
// takes them only where the CPU reports BW.
//
// The fused rows (DepthwiseUint8RequantRowKernel) run the same sums, started
// from the bias, and requantize 16 at a time in zmm registers
// (requantize_avx512.h, without the sign steps where the clamp starts at or
// above the zero point; the 8-wide steps fill half a register), storing the
// valid bytes under a mask.
//
// GCC's AVX-512 headers start several intrinsics (max, min, abs, shifts,
// inserts and extracts) from a self-initialised register (`__m512i __Y =
// __Y;`) that they overwrite; GCC 12 reports it as -Wmaybe-uninitialized
// once inlined into the functions below, which carry a target attribute.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "mace/ops/x86/avx512_kernels.h"
#include "mace/ops/x86/requantize_avx512.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

int32_t TapPair(int16_t low, int16_t high) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(low)) |
                              (static_cast<uint32_t>(static_cast<uint16_t>(high)) << 16));
}

int64_t PaddedCount(int64_t count) {
  return (count + kDepthwiseUint8Lanes - 1) / kDepthwiseUint8Lanes * kDepthwiseUint8Lanes;
}

inline __m512i Load512(const int16_t* in) { return _mm512_loadu_si512(in); }
inline __m256i Load256(const int16_t* in) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
}
inline __m128i Load128(const int16_t* in) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
}

// Where the sums go: to memory as int32 (the whole padded row), or
// requantized to bytes (only x < count).
// Start() is what the accumulators start from: 0 for the sums, the row's
// term (bias) for the requantized bytes, which thus need no add of their
// own (the sums are exact modulo 2^32).
struct SumsSink {
  int32_t* sums;
  __attribute__((target("avx512bw"))) __m512i Start() const { return _mm512_setzero_si512(); }
  __attribute__((target("avx512bw"))) void Store16(int64_t x, __m512i acc) const {
    _mm512_storeu_si512(sums + x, acc);
  }
  __attribute__((target("avx512bw"))) void Store8(int64_t x, __m256i acc) const {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + x), acc);
  }
};

template <bool AboveZero>
struct RequantSink {
  __m512i row_term;
  Avx512RequantizeScale scale;
  Avx512RequantizeClamp clamp;
  int64_t count;
  uint8_t* out;
  __attribute__((target("avx512bw"))) explicit RequantSink(const DepthwiseUint8RequantRow& r)
      : row_term(_mm512_set1_epi32(r.output.row_term)),
        scale(Avx512MakeRequantizeScale(r.output.multiplier, r.output.right_shift)),
        clamp(Avx512MakeRequantizeClamp(r.output.zero_point, r.output.lo, r.output.hi)),
        count(r.row.count),
        out(r.output.out) {}
  __attribute__((target("avx512bw"))) __m512i Start() const { return row_term; }
  // Lanes [0, lanes) of acc are outputs x, x + 1, ...; those below count
  // are stored.
  __attribute__((target("avx512bw"))) void Store(int64_t x, __m512i acc, int64_t lanes) const {
    const int64_t valid = count - x < lanes ? count - x : lanes;
    if (valid <= 0) return;
    const __mmask16 mask = static_cast<__mmask16>((1u << valid) - 1);
    _mm512_mask_cvtepi32_storeu_epi8(out + x, mask,
                                     Avx512RequantizeAs<AboveZero>(acc, scale, clamp));
  }
  __attribute__((target("avx512bw"))) void Store16(int64_t x, __m512i acc) const {
    Store(x, acc, 16);
  }
  __attribute__((target("avx512bw"))) void Store8(int64_t x, __m256i acc) const {
    Store(x, _mm512_castsi256_si512(acc), 8);
  }
};

template <typename Sink>
__attribute__((target("avx512bw"))) void RowS1(const DepthwiseUint8Row& row, const Sink& sink) {
  int32_t first[3], third[3];
  for (int i = 0; i < 3; ++i) {
    first[i] = TapPair(row.taps[3 * i], row.taps[3 * i + 1]);
    third[i] = TapPair(row.taps[3 * i + 2], 0);
  }
  const int64_t padded = PaddedCount(row.count);
  int64_t x = 0;
  if (x + 32 <= padded) {
    __m512i t01[3], t2[3];
    for (int i = 0; i < 3; ++i) {
      t01[i] = _mm512_set1_epi32(first[i]);
      t2[i] = _mm512_set1_epi32(third[i]);
    }
    const __m512i low_order = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1,
                                               16, 0);
    const __m512i high_order = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10,
                                                25, 9, 24, 8);
    for (; x + 32 <= padded; x += 32) {
      __m512i even = sink.Start(), odd = even;
      for (int i = 0; i < 3; ++i) {
        const int16_t* in = row.rows[i] + x;
        even = _mm512_add_epi32(even, _mm512_madd_epi16(Load512(in), t01[i]));
        odd = _mm512_add_epi32(odd, _mm512_madd_epi16(Load512(in + 1), t01[i]));
        even = _mm512_add_epi32(even, _mm512_madd_epi16(Load512(in + 2), t2[i]));
        odd = _mm512_add_epi32(odd, _mm512_madd_epi16(Load512(in + 3), t2[i]));
      }
      sink.Store16(x, _mm512_permutex2var_epi32(even, low_order, odd));
      sink.Store16(x + 16, _mm512_permutex2var_epi32(even, high_order, odd));
    }
  }
  if (x + 16 <= padded) {
    // 16 outputs on ymm registers (rows of 14 to 16, and the middle of
    // longer ones).
    __m256i even = _mm512_castsi512_si256(sink.Start()), odd = even;
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + x;
      const __m256i t01 = _mm256_set1_epi32(first[i]), t2 = _mm256_set1_epi32(third[i]);
      even = _mm256_add_epi32(even, _mm256_madd_epi16(Load256(in), t01));
      odd = _mm256_add_epi32(odd, _mm256_madd_epi16(Load256(in + 1), t01));
      even = _mm256_add_epi32(even, _mm256_madd_epi16(Load256(in + 2), t2));
      odd = _mm256_add_epi32(odd, _mm256_madd_epi16(Load256(in + 3), t2));
    }
    // unpack works within 128-bit halves: (e0 o0 e1 o1 | e4 o4 e5 o5) and
    // (e2 o2 e3 o3 | e6 o6 e7 o7), then the halves are put in order.
    const __m256i low = _mm256_unpacklo_epi32(even, odd), high = _mm256_unpackhi_epi32(even, odd);
    sink.Store16(x, _mm512_inserti64x4(
                        _mm512_castsi256_si512(_mm256_permute2x128_si256(low, high, 0x20)),
                        _mm256_permute2x128_si256(low, high, 0x31), 1));
    x += 16;
  }
  for (; x < padded; x += 8) {
    __m128i even = _mm512_castsi512_si128(sink.Start()), odd = even;
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + x;
      const __m128i t01 = _mm_set1_epi32(first[i]), t2 = _mm_set1_epi32(third[i]);
      even = _mm_add_epi32(even, _mm_madd_epi16(Load128(in), t01));
      odd = _mm_add_epi32(odd, _mm_madd_epi16(Load128(in + 1), t01));
      even = _mm_add_epi32(even, _mm_madd_epi16(Load128(in + 2), t2));
      odd = _mm_add_epi32(odd, _mm_madd_epi16(Load128(in + 3), t2));
    }
    sink.Store8(x, _mm256_set_m128i(_mm_unpackhi_epi32(even, odd), _mm_unpacklo_epi32(even, odd)));
  }
}

template <typename Sink>
__attribute__((target("avx512bw"))) void RowS2(const DepthwiseUint8Row& row, const Sink& sink) {
  __m512i t01[3], t2[3];
  for (int i = 0; i < 3; ++i) {
    t01[i] = _mm512_set1_epi32(TapPair(row.taps[3 * i], row.taps[3 * i + 1]));
    t2[i] = _mm512_set1_epi32(TapPair(row.taps[3 * i + 2], 0));
  }
  const int64_t padded = PaddedCount(row.count);
  int64_t x = 0;
  for (; x + 16 <= padded; x += 16) {
    __m512i acc = sink.Start();
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + 2 * x;
      acc = _mm512_add_epi32(acc, _mm512_madd_epi16(Load512(in), t01[i]));
      acc = _mm512_add_epi32(acc, _mm512_madd_epi16(Load512(in + 2), t2[i]));
    }
    sink.Store16(x, acc);
  }
  if (x < padded) {  // 8 outputs left
    __m256i acc = _mm512_castsi512_si256(sink.Start());
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + 2 * x;
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(Load256(in), _mm512_castsi512_si256(t01[i])));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(Load256(in + 2), _mm512_castsi512_si256(t2[i])));
    }
    sink.Store8(x, acc);
  }
}

// The rows of a fused call, one after another, with the output
// constants set up once.
template <bool AboveZero, void (*kRow)(const DepthwiseUint8Row&, const RequantSink<AboveZero>&)>
__attribute__((target("avx512bw"))) void FusedPlane(const DepthwiseUint8RequantRow& rows) {
  RequantSink<AboveZero> sink(rows);
  DepthwiseUint8Row row = rows.row;
  for (int64_t r = 0; r < rows.out_rows; ++r) {
    kRow(row, sink);
    for (int i = 0; i < 3; ++i) row.rows[i] += rows.input_step;
    sink.out += rows.output_step;
  }
}

}  // namespace

__attribute__((target("avx512bw"))) void Avx512DepthwiseUint8S1(const DepthwiseUint8Row& row) {
  RowS1(row, SumsSink{row.sums});
}

__attribute__((target("avx512bw"))) void Avx512DepthwiseUint8S2(const DepthwiseUint8Row& row) {
  RowS2(row, SumsSink{row.sums});
}

__attribute__((target("avx512bw"))) void Avx512DepthwiseUint8RequantS1(
    const DepthwiseUint8RequantRow& rows) {
  if (rows.output.lo >= rows.output.zero_point) {
    FusedPlane<true, RowS1<RequantSink<true>>>(rows);
  } else {
    FusedPlane<false, RowS1<RequantSink<false>>>(rows);
  }
}

__attribute__((target("avx512bw"))) void Avx512DepthwiseUint8RequantS2(
    const DepthwiseUint8RequantRow& rows) {
  if (rows.output.lo >= rows.output.zero_point) {
    FusedPlane<true, RowS2<RequantSink<true>>>(rows);
  } else {
    FusedPlane<false, RowS2<RequantSink<false>>>(rows);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
