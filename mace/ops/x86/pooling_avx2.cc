// AVX2 pooling: bands of 2x2 / 3x3 windows, and global pooling planes.
//
// A window is separable: each output row first reduces its input rows
// column by column into the band's line (one pass over whole input rows),
// then reduces kernel_w neighbouring line cells per output, 8 outputs per
// vector. At stride 2 the line is split into even and odd lanes with in-lane
// shuffles; all taps come out in the same lane order (0 1 4 5 2 3 6 7), so
// one cross-lane permute per output vector restores it.
//
// A row's ragged end is one more whole vector ending at the last output
// (outputs are recomputed from the line, never from what was stored); rows
// narrower than a vector and the line's input tail use masked loads and
// stores.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int kLanes = 8;

// From kLaneMask + 8 - n: the first n lanes set.
alignas(32) const int32_t kLaneMask[2 * kLanes] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                   0,  0,  0,  0,  0,  0,  0,  0};

__m256i FirstLanes(int64_t n) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLaneMask + kLanes - n));
}

struct MaxOp {
  static constexpr bool kAverage = false;
  static __m256 Apply(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
};

struct SumOp {
  static constexpr bool kAverage = true;  // outputs are scaled
  static __m256 Apply(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
};

// dst[c] = reduction of in[r * in_w + c] over kRows rows, for c < width.
template <class Op, int kRows>
void ReduceRows(const float* in, int64_t in_w, int64_t width, float* dst) {
  int64_t c = 0;
  for (; c + kLanes <= width; c += kLanes) {
    __m256 acc = _mm256_loadu_ps(in + c);
    for (int r = 1; r < kRows; ++r) acc = Op::Apply(acc, _mm256_loadu_ps(in + r * in_w + c));
    _mm256_storeu_ps(dst + c, acc);
  }
  if (c < width) {
    const __m256i mask = FirstLanes(width - c);
    __m256 acc = _mm256_maskload_ps(in + c, mask);
    for (int r = 1; r < kRows; ++r)
      acc = Op::Apply(acc, _mm256_maskload_ps(in + r * in_w + c, mask));
    _mm256_maskstore_ps(dst + c, mask, acc);
  }
}

// The reductions of 8 consecutive output windows, the first starting at
// line cell `p`.
template <class Op, int kKernel, int kStride>
__m256 Windows(const float* p) {
  if constexpr (kStride == 1) {
    __m256 acc = Op::Apply(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 1));
    if constexpr (kKernel == 3) acc = Op::Apply(acc, _mm256_loadu_ps(p + 2));
    return acc;
  } else {
    const __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + kLanes);
    __m256 acc = Op::Apply(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)),
                           _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1)));
    if constexpr (kKernel == 3) {
      const __m256 lo2 = _mm256_loadu_ps(p + 2), hi2 = _mm256_loadu_ps(p + kLanes + 2);
      acc = Op::Apply(acc, _mm256_shuffle_ps(lo2, hi2, _MM_SHUFFLE(2, 0, 2, 0)));
    }
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(acc), _MM_SHUFFLE(3, 1, 2, 0)));
  }
}

template <class Op, int kKernel, int kStride>
void OutputRow(const float* line, const float* scale, float* out, int64_t width) {
  if (width < kLanes) {
    const __m256i mask = FirstLanes(width);
    __m256 v = Windows<Op, kKernel, kStride>(line);
    if constexpr (Op::kAverage) v = _mm256_mul_ps(v, _mm256_maskload_ps(scale, mask));
    _mm256_maskstore_ps(out, mask, v);
    return;
  }
  const int64_t last = width - kLanes;
  for (int64_t j = 0; j < width; j += kLanes) {
    const int64_t column = j < last ? j : last;
    __m256 v = Windows<Op, kKernel, kStride>(line + column * kStride);
    if constexpr (Op::kAverage) v = _mm256_mul_ps(v, _mm256_loadu_ps(scale + column));
    _mm256_storeu_ps(out + column, v);
  }
}

template <class Op, int kKernel, int kStride>
void Band(const PoolingBand& band) {
  const int64_t in_w = band.in_w, out_w = band.out_w;
  float* cells = band.line + band.pad_left;
  for (int64_t r = 0; r < band.rows; ++r) {
    const PoolingRowWindow& window = band.windows[r];
    float* out = band.out + r * out_w;
    const float* in = band.in + window.first_row * in_w;
    switch (window.row_count) {
      case 1:
        ReduceRows<Op, 1>(in, in_w, in_w, cells);
        break;
      case 2:
        ReduceRows<Op, 2>(in, in_w, in_w, cells);
        break;
      case 3:
        ReduceRows<Op, 3>(in, in_w, in_w, cells);
        break;
      default:
        for (int64_t j = 0; j < out_w; ++j) out[j] = 0.f;
        continue;
    }
    OutputRow<Op, kKernel, kStride>(band.line, window.scale, out, out_w);
  }
}

template <class Op>
void BandFor(const PoolingBand& band) {
  if (band.kernel_w == 2) {
    band.stride_w == 1 ? Band<Op, 2, 1>(band) : Band<Op, 2, 2>(band);
  } else {
    band.stride_w == 1 ? Band<Op, 3, 1>(band) : Band<Op, 3, 2>(band);
  }
}

float HorizontalSum(__m256 v) {
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  x = _mm_add_ss(x, _mm_movehdup_ps(x));
  return _mm_cvtss_f32(x);
}

float HorizontalMax(__m256 v) {
  __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_max_ps(x, _mm_movehl_ps(x, x));
  x = _mm_max_ss(x, _mm_movehdup_ps(x));
  return _mm_cvtss_f32(x);
}

// Four accumulators hide the add/max latency.
template <class Op>
__m256 ReducePlane(const float* data, int64_t count, __m256 identity) {
  __m256 acc0 = identity, acc1 = identity, acc2 = identity, acc3 = identity;
  int64_t i = 0;
  for (; i + 4 * kLanes <= count; i += 4 * kLanes) {
    acc0 = Op::Apply(acc0, _mm256_loadu_ps(data + i));
    acc1 = Op::Apply(acc1, _mm256_loadu_ps(data + i + kLanes));
    acc2 = Op::Apply(acc2, _mm256_loadu_ps(data + i + 2 * kLanes));
    acc3 = Op::Apply(acc3, _mm256_loadu_ps(data + i + 3 * kLanes));
  }
  for (; i + kLanes <= count; i += kLanes) acc0 = Op::Apply(acc0, _mm256_loadu_ps(data + i));
  if (i < count) {
    const __m256i mask = FirstLanes(count - i);
    const __m256 tail =
        _mm256_blendv_ps(identity, _mm256_maskload_ps(data + i, mask), _mm256_castsi256_ps(mask));
    acc1 = Op::Apply(acc1, tail);
  }
  return Op::Apply(Op::Apply(acc0, acc1), Op::Apply(acc2, acc3));
}

}  // namespace

void Avx2PoolingBand(const PoolingBand& band) {
  if (band.average != 0) {
    BandFor<SumOp>(band);
  } else {
    BandFor<MaxOp>(band);
  }
}

float Avx2PlaneSum(const float* data, int64_t count) {
  return HorizontalSum(ReducePlane<SumOp>(data, count, _mm256_setzero_ps()));
}

float Avx2PlaneMax(const float* data, int64_t count) {
  return HorizontalMax(ReducePlane<MaxOp>(data, count, _mm256_set1_ps(-__builtin_inff())));
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
