#include "mace/ops/cpu/layer_norm_fast.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace mace {
namespace ops {
namespace {

constexpr int kLanes = 8;
constexpr int64_t kBlock = 256;

// sum(row[i] - center) or, with square, sum((row[i] - center)^2).
template <bool square>
double BlockedSum(const float* row, int64_t n, float center) {
  double total = 0;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    float lanes[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) {
        const float d = row[i + l] - center;
        lanes[l] += square ? d * d : d;
      }
    }
    float tail = 0;
    for (; i < end; ++i) {
      const float d = row[i] - center;
      tail += square ? d * d : d;
    }
    double block = tail;
    for (int l = 0; l < kLanes; ++l) block += lanes[l];
    total += block;
  }
  return total;
}

}  // namespace

void LayerNormFast(const ref::LayerNormParams& p, const float* input, const float* scale,
                   const float* bias, float* output, float* mean, float* inv_std_dev,
                   ThreadPool* pool, LayerNormRowsKernel rows_kernel) {
  auto rows = [&](int64_t begin, int64_t end) {
    if (rows_kernel == nullptr) {
      LayerNormRows(p, begin, end, input, scale, bias, output, mean, inv_std_dev);
      return;
    }
    rows_kernel(input + begin * p.inner, end - begin, p.inner, scale, bias, p.epsilon,
                output + begin * p.inner, mean != nullptr ? mean + begin : nullptr,
                inv_std_dev != nullptr ? inv_std_dev + begin : nullptr);
  };
  // Rows are independent, so any split gives the same values; a pool only
  // for work worth waking it (a BERT layer's 128 x 384 values is).
  constexpr int64_t kSerialValues = 16384;
  if (p.outer > 1 && p.outer * p.inner >= kSerialValues && NumThreads(pool) > 1) {
    ParallelFor(pool, p.outer, rows);
    return;
  }
  rows(0, p.outer);
}

void LayerNormRows(const ref::LayerNormParams& p, int64_t begin, int64_t end, const float* input,
                   const float* scale, const float* bias, float* output, float* mean,
                   float* inv_std_dev) {
  const double count = static_cast<double>(p.inner);
  for (int64_t o = begin; o < end; ++o) {
    const float* row = input + o * p.inner;
    // Centering on the first value before summing keeps large offsets from
    // eating the float lanes' precision.
    const float pivot = row[0];
    const double mu = pivot + BlockedSum<false>(row, p.inner, pivot) / count;
    const float mu_f = static_cast<float>(mu);
    const double var = BlockedSum<true>(row, p.inner, mu_f) / count;
    const double inv = 1.0 / std::sqrt(var + static_cast<double>(p.epsilon));
    // The affine part in double, as the reference does, so outputs near
    // zero (bias cancelling the normalized value) keep their precision.
    float* out = output + o * p.inner;
    if (scale != nullptr && bias != nullptr) {
      for (int64_t i = 0; i < p.inner; ++i) {
        out[i] = static_cast<float>((row[i] - mu) * inv * scale[i] + bias[i]);
      }
    } else if (scale != nullptr) {
      for (int64_t i = 0; i < p.inner; ++i) {
        out[i] = static_cast<float>((row[i] - mu) * inv * scale[i]);
      }
    } else if (bias != nullptr) {
      for (int64_t i = 0; i < p.inner; ++i)
        out[i] = static_cast<float>((row[i] - mu) * inv + bias[i]);
    } else {
      for (int64_t i = 0; i < p.inner; ++i) out[i] = static_cast<float>((row[i] - mu) * inv);
    }
    if (mean != nullptr) mean[o] = mu_f;
    if (inv_std_dev != nullptr) inv_std_dev[o] = static_cast<float>(inv);
  }
}

}  // namespace ops
}  // namespace mace
