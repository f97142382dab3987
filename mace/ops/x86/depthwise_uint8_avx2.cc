// AVX2 rows of a 3x3 uint8 depthwise convolution (DepthwiseUint8RowKernel):
// int16 inputs widened to int32 lanes, multiplied by the int16 taps in
// int32 and summed, 8 outputs per vector. Every product and sum is exact.
//
// Stride 2 loads 16 consecutive int16 inputs as 8 int32 words: the even
// input of each pair is the word's low half (shifted up and back down to
// sign-extend it), the odd one its high half, so no shuffle is needed.
//
// The fused rows (DepthwiseUint8RequantRowKernel) run the same sums and
// requantize each vector of 8 in registers (requantize_avx2.h), storing 8
// bytes, or only the valid ones of the last vector.
#include <immintrin.h>

#include <cstring>

#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/requantize_avx2.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

inline __m256i Widen8(const int16_t* in) {
  return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
}

inline __m256i Load16(const int16_t* in) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
}

inline __m256i Even(__m256i pairs) { return _mm256_srai_epi32(_mm256_slli_epi32(pairs, 16), 16); }
inline __m256i Odd(__m256i pairs) { return _mm256_srai_epi32(pairs, 16); }

inline __m256i MulAdd(__m256i x, __m256i tap, __m256i acc) {
  return _mm256_add_epi32(acc, _mm256_mullo_epi32(x, tap));
}

// Where the 8 sums at x go: to memory as int32, or requantized to bytes.
struct SumsSink {
  int32_t* sums;
  void operator()(int64_t x, __m256i acc) const {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + x), acc);
  }
};

struct RequantSink {
  __m256i row_term;
  Avx2RequantizeScale scale;
  Avx2RequantizeClamp clamp;
  int64_t count;
  uint8_t* out;
  explicit RequantSink(const DepthwiseUint8RequantRow& r)
      : row_term(_mm256_set1_epi32(r.output.row_term)),
        scale(Avx2MakeRequantizeScale(r.output.multiplier, r.output.right_shift)),
        clamp(Avx2MakeRequantizeClamp(r.output.zero_point, r.output.lo, r.output.hi)),
        count(r.row.count),
        out(r.output.out) {}
  void operator()(int64_t x, __m256i acc) const {
    const int64_t bytes =
        Avx2PackBytes(Avx2Requantize(_mm256_add_epi32(acc, row_term), scale, clamp));
    if (x + 8 <= count) {
      std::memcpy(out + x, &bytes, 8);
      return;
    }
    // The valid bytes only, in pieces of 4, 2 and 1.
    const int64_t valid = count - x;
    uint8_t* dst = out + x;
    uint64_t rest = static_cast<uint64_t>(bytes);
    if (valid & 4) {
      const uint32_t word = static_cast<uint32_t>(rest);
      std::memcpy(dst, &word, 4);
      dst += 4;
      rest >>= 32;
    }
    if (valid & 2) {
      const uint16_t half = static_cast<uint16_t>(rest);
      std::memcpy(dst, &half, 2);
      dst += 2;
      rest >>= 16;
    }
    if (valid & 1) *dst = static_cast<uint8_t>(rest);
  }
};

template <typename Sink>
void RowS1(const DepthwiseUint8Row& row, const Sink& sink) {
  __m256i taps[9];
  for (int t = 0; t < 9; ++t) taps[t] = _mm256_set1_epi32(row.taps[t]);
  for (int64_t x = 0; x < row.count; x += kDepthwiseUint8Lanes) {
    __m256i acc = _mm256_setzero_si256();
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + x;
      acc = MulAdd(Widen8(in), taps[3 * i], acc);
      acc = MulAdd(Widen8(in + 1), taps[3 * i + 1], acc);
      acc = MulAdd(Widen8(in + 2), taps[3 * i + 2], acc);
    }
    sink(x, acc);
  }
}

template <typename Sink>
void RowS2(const DepthwiseUint8Row& row, const Sink& sink) {
  __m256i taps[9];
  for (int t = 0; t < 9; ++t) taps[t] = _mm256_set1_epi32(row.taps[t]);
  for (int64_t x = 0; x < row.count; x += kDepthwiseUint8Lanes) {
    __m256i acc = _mm256_setzero_si256();
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + 2 * x;
      const __m256i pairs = Load16(in);
      acc = MulAdd(Even(pairs), taps[3 * i], acc);
      acc = MulAdd(Odd(pairs), taps[3 * i + 1], acc);
      acc = MulAdd(Even(Load16(in + 2)), taps[3 * i + 2], acc);
    }
    sink(x, acc);
  }
}

// The rows of a fused call, one after another, with the output
// constants set up once.
template <void (*kRow)(const DepthwiseUint8Row&, const RequantSink&)>
void FusedPlane(const DepthwiseUint8RequantRow& rows) {
  RequantSink sink(rows);
  DepthwiseUint8Row row = rows.row;
  for (int64_t r = 0; r < rows.out_rows; ++r) {
    kRow(row, sink);
    for (int i = 0; i < 3; ++i) row.rows[i] += rows.input_step;
    sink.out += rows.output_step;
  }
}

}  // namespace

void Avx2DepthwiseUint8S1(const DepthwiseUint8Row& row) { RowS1(row, SumsSink{row.sums}); }

void Avx2DepthwiseUint8S2(const DepthwiseUint8Row& row) { RowS2(row, SumsSink{row.sums}); }

void Avx2DepthwiseUint8RequantS1(
    const DepthwiseUint8RequantRow& rows) {
  FusedPlane<RowS1<RequantSink>>(rows);
}

void Avx2DepthwiseUint8RequantS2(
    const DepthwiseUint8RequantRow& rows) {
  FusedPlane<RowS2<RequantSink>>(rows);
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
