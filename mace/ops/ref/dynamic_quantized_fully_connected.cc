#include "mace/ops/ref/dynamic_quantized_fully_connected.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

namespace {

// The row quantization runs on every input row of every kernel, so it is
// written once, on four-lane generic vectors (`vector_size`, 16 bytes: one
// SSE2 or NEON register), two at a time; every kernel calls this same
// function, so they all see the same q.
constexpr int kLanes = 4;
typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t Ints __attribute__((vector_size(kLanes * sizeof(int32_t))));

// 1.5 * 2^23: adding it to a float of magnitude at most 2^22 leaves no
// fraction bits, so (v + kShift) - kShift is v rounded half to even under
// the default rounding mode (without -ffast-math the compiler keeps both
// steps).
constexpr float kShift = 12582912.f;

inline float RoundHalfEven(float v) { return (v + kShift) - kShift; }

// value * factor rounded (the factor is 1 / s), or value / factor (the
// factor is s) when kDivide, plus zero, clamped to [0, 255]. The quotient is
// clamped to [-zero, 255 - zero] before it is rounded, which gives the same
// (zero is an integer) and keeps compilers that fuse a product into the
// next addition (GCC on arm64) from rounding the product and the rounder's
// addition as one: every build rounds the product first.
template <bool kDivide>
inline float Quantize(float value, float factor, float zero) {
  float v = kDivide ? value / factor : value * factor;
  v = v > -zero ? v : -zero;
  v = v < 255.f - zero ? v : 255.f - zero;
  return RoundHalfEven(v) + zero;
}

// The scale and zero point of a range; s 1, z 0 for a range of zeros.
template <bool kDivide>
DynamicRow RowOf(const DynamicRange& range) {
  DynamicRow row;
  const float span = range.high - range.low;
  row.finite = range.finite && span - span == 0.f;
  if (!row.finite || span == 0.f) return row;
  row.scale = span / 255.f;
  const float factor = kDivide ? row.scale : 1.f / row.scale;
  row.zero_point = static_cast<int32_t>(Quantize<kDivide>(-range.low, factor, 0.f));
  return row;
}

// q for `count` values with `row`'s scale and zero point; all 0 for a row
// that is not finite. (Over a range of zeros the values are all zeros,
// which give q 0 with s 1 and z 0.)
template <bool kDivide>
void QuantizeWith(const float* x, int64_t count, const DynamicRow& row, uint8_t* q) {
  if (!row.finite) {
    std::fill(q, q + count, uint8_t{0});
    return;
  }
  const float factor = kDivide ? row.scale : 1.f / row.scale;
  const float zero = static_cast<float>(row.zero_point);
  // Fixed blocks of 16, which GCC's -O2 cost model vectorizes (with the
  // narrowing to bytes done by packs).
  constexpr int64_t kBlock = 16;
  int64_t k = 0;
  for (; k + kBlock <= count; k += kBlock) {
    int32_t values[kBlock];
    for (int64_t j = 0; j < kBlock; ++j) {
      values[j] = static_cast<int32_t>(Quantize<kDivide>(x[k + j], factor, zero));
    }
    for (int64_t j = 0; j < kBlock; ++j) q[k + j] = static_cast<uint8_t>(values[j]);
  }
  for (; k < count; ++k) q[k] = static_cast<uint8_t>(Quantize<kDivide>(x[k], factor, zero));
}

template <bool kDivide>
DynamicRow QuantizeDynamic(const float* x, int64_t count, uint8_t* q) {
  const DynamicRow row = RowOf<kDivide>(RangeDynamic(x, count));
  QuantizeWith<kDivide>(x, count, row, q);
  return row;
}

}  // namespace

DynamicRange RangeDynamic(const float* x, int64_t count) {
  // min, max and a sum of x * 0, which is NaN once any value is a NaN or
  // an infinity. The lanes' order changes none of the three.
  Floats lows[2] = {}, highs[2] = {}, checks[2] = {};
  int64_t k = 0;
  for (; k + 2 * kLanes <= count; k += 2 * kLanes) {
    for (int h = 0; h < 2; ++h) {
      Floats v;
      std::memcpy(&v, x + k + h * kLanes, sizeof(v));
      lows[h] = v < lows[h] ? v : lows[h];
      highs[h] = v > highs[h] ? v : highs[h];
      checks[h] += v * 0.f;
    }
  }
  DynamicRange range;
  float check = 0.f;
  for (int h = 0; h < 2; ++h) {
    for (int j = 0; j < kLanes; ++j) {
      range.low = lows[h][j] < range.low ? lows[h][j] : range.low;
      range.high = highs[h][j] > range.high ? highs[h][j] : range.high;
      check += checks[h][j];
    }
  }
  for (; k < count; ++k) {
    range.low = x[k] < range.low ? x[k] : range.low;
    range.high = x[k] > range.high ? x[k] : range.high;
    check += x[k] * 0.f;
  }
  range.finite = check == 0.f;
  return range;
}

DynamicRow TensorRowDynamic(const DynamicRange& range) { return RowOf<true>(range); }

DynamicRow RowDynamic(const DynamicRange& range) { return RowOf<false>(range); }

void QuantizeWithRowDynamic(const float* x, int64_t count, const DynamicRow& row, uint8_t* q) {
  QuantizeWith<true>(x, count, row, q);
}

DynamicRow QuantizeRowDynamic(const float* x, int64_t count, uint8_t* q) {
  return QuantizeDynamic<false>(x, count, q);
}

DynamicRow QuantizeTensorDynamic(const float* x, int64_t count, uint8_t* q) {
  return QuantizeDynamic<true>(x, count, q);
}

void DynamicQuantizedFullyConnected(const FullyConnectedParams& p, const float* input,
                                    const DynamicWeight& weight, bool per_tensor,
                                    const float* weight_scale, const float* bias, float* output) {
  const int64_t depth = p.in_features;
  std::vector<uint8_t> q(per_tensor ? p.batch * depth : depth);
  DynamicRow tensor;
  if (per_tensor) tensor = QuantizeTensorDynamic(input, p.batch * depth, q.data());
  for (int64_t n = 0; n < p.batch; ++n) {
    const uint8_t* row_q = per_tensor ? q.data() + n * depth : q.data();
    const DynamicRow row =
        per_tensor ? tensor : QuantizeRowDynamic(input + n * depth, depth, q.data());
    for (int64_t o = 0; o < p.out_features; ++o) {
      float* out = output + n * p.out_features + o;
      if (!row.finite) {
        *out = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      const int64_t w_zero = weight.ZeroPoint(o);
      int64_t sum = 0;
      for (int64_t k = 0; k < depth; ++k) {
        sum += (int64_t{row_q[k]} - row.zero_point) * (weight.Value(o * depth + k) - w_zero);
      }
      *out = p.activation.Apply(
          DynamicOutput(static_cast<float>(sum), row.scale, weight_scale[o], bias != nullptr ? bias[o] : 0.f));
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
