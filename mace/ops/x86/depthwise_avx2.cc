// AVX2/FMA rows of a 3x3 depthwise convolution, 8 outputs per vector.
//
// Stride 2 loads 16 consecutive inputs and splits them into even and odd
// lanes with one in-lane shuffle and one cross-lane permute, so each output
// vector still costs 9 FMAs.
#include <immintrin.h>

#include "mace/ops/x86/avx2_epilogue.h"
#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

float ActivateScalar(float v, const TileEpilogue& epilogue) {
  if (epilogue.activation == kTileActClamp) {
    v = v < epilogue.lo ? epilogue.lo : v;
    return v > epilogue.hi ? epilogue.hi : v;
  }
  if (epilogue.activation == kTileActHardSwish) {
    float gate = v + 3.f;
    gate = gate < 0.f ? 0.f : (gate > 6.f ? 6.f : gate);
    return v * gate / 6.f;
  }
  return v;
}

float ScalarOutput(const DepthwiseRow& row, int64_t j, int stride) {
  float sum = row.bias;
  for (int r = 0; r < 3; ++r) {
    if (row.rows[r] == nullptr) continue;
    const float* in = row.rows[r] + j * stride;
    sum += in[0] * row.taps[3 * r] + in[1] * row.taps[3 * r + 1] + in[2] * row.taps[3 * r + 2];
  }
  return ActivateScalar(sum, row.epilogue);
}

__m256 EvenLanes(__m256 lo, __m256 hi) {
  const __m256 mixed = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(mixed), _MM_SHUFFLE(3, 1, 2, 0)));
}

__m256 OddLanes(__m256 lo, __m256 hi) {
  const __m256 mixed = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(mixed), _MM_SHUFFLE(3, 1, 2, 0)));
}

// Broadcast once per row: the output may alias the taps as far as the
// compiler knows, so taps read inside the loop would be reloaded per store.
struct Taps {
  __m256 v[9];
  explicit Taps(const float* taps) {
    for (int i = 0; i < 9; ++i) v[i] = _mm256_set1_ps(taps[i]);
  }
};

}  // namespace

void Avx2DepthwiseRow3x3S1(const DepthwiseRow& row) {
  const Taps taps(row.taps);
  const __m256 bias = _mm256_set1_ps(row.bias);
  int64_t j = 0;
  // Output j reads inputs j .. j + 2, so a vector of 8 needs j + 8 <= count.
  for (; j + 8 <= row.count; j += 8) {
    __m256 acc = bias;
    for (int r = 0; r < 3; ++r) {
      if (row.rows[r] == nullptr) continue;
      const float* in = row.rows[r] + j;
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(in), taps.v[3 * r], acc);
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(in + 1), taps.v[3 * r + 1], acc);
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(in + 2), taps.v[3 * r + 2], acc);
    }
    _mm256_storeu_ps(row.out + j, Avx2Activate(acc, row.epilogue));
  }
  for (; j < row.count; ++j) row.out[j] = ScalarOutput(row, j, 1);
}

void Avx2DepthwiseRow3x3S2(const DepthwiseRow& row) {
  const Taps taps(row.taps);
  const __m256 bias = _mm256_set1_ps(row.bias);
  int64_t j = 0;
  // The loads reach input 2j + 17 while the last valid one is 2 * count, so
  // a vector needs j + 9 <= count.
  for (; j + 9 <= row.count; j += 8) {
    __m256 acc = bias;
    for (int r = 0; r < 3; ++r) {
      if (row.rows[r] == nullptr) continue;
      const float* in = row.rows[r] + 2 * j;
      const __m256 lo = _mm256_loadu_ps(in), hi = _mm256_loadu_ps(in + 8);
      const __m256 lo2 = _mm256_loadu_ps(in + 2), hi2 = _mm256_loadu_ps(in + 10);
      acc = _mm256_fmadd_ps(EvenLanes(lo, hi), taps.v[3 * r], acc);
      acc = _mm256_fmadd_ps(OddLanes(lo, hi), taps.v[3 * r + 1], acc);
      acc = _mm256_fmadd_ps(EvenLanes(lo2, hi2), taps.v[3 * r + 2], acc);
    }
    _mm256_storeu_ps(row.out + j, Avx2Activate(acc, row.epilogue));
  }
  for (; j < row.count; ++j) row.out[j] = ScalarOutput(row, j, 2);
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
