#include "mace/ops/ref/dynamic_quantized_fully_connected.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

namespace {

// round_half_even(v) for |v| <= 2^22 under the default rounding mode, in
// plain arithmetic that vectorizes (adding 1.5 * 2^23 leaves no fraction
// bits; without -ffast-math the compiler keeps both steps).
inline float RoundHalfEven(float v) {
  constexpr float kShift = 12582912.f;
  return (v + kShift) - kShift;
}

}  // namespace

DynamicRow QuantizeRowDynamic(const float* x, int64_t count, uint8_t* q) {
  // Eight independent lanes, so that the compiler can keep them in
  // vectors: min, max and a sum of x * 0, which is NaN once any value is a
  // NaN or an infinity. The lanes' order changes none of the three.
  constexpr int kLanes = 8;
  float lows[kLanes] = {}, highs[kLanes] = {}, checks[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= count; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[k + j];
      lows[j] = v < lows[j] ? v : lows[j];
      highs[j] = v > highs[j] ? v : highs[j];
      checks[j] += v * 0.f;
    }
  }
  for (; k < count; ++k) {
    lows[0] = x[k] < lows[0] ? x[k] : lows[0];
    highs[0] = x[k] > highs[0] ? x[k] : highs[0];
    checks[0] += x[k] * 0.f;
  }
  float low = 0.f, high = 0.f, check = 0.f;
  for (int j = 0; j < kLanes; ++j) {
    low = lows[j] < low ? lows[j] : low;
    high = highs[j] > high ? highs[j] : high;
    check += checks[j];
  }
  DynamicRow row;
  const float span = high - low;
  row.finite = check == 0.f && span - span == 0.f;
  if (!row.finite || span == 0.f) {
    std::fill(q, q + count, uint8_t{0});
    return row;
  }
  row.scale = span / 255.f;
  const float inverse = 1.f / row.scale;
  const float zero = std::min(std::max(RoundHalfEven(-low * inverse), 0.f), 255.f);
  row.zero_point = static_cast<int32_t>(zero);
  auto quantize = [&](float value) {
    float v = RoundHalfEven(value * inverse) + zero;
    v = v > 0.f ? v : 0.f;
    v = v < 255.f ? v : 255.f;
    return static_cast<int32_t>(v);
  };
  for (k = 0; k + kLanes <= count; k += kLanes) {
    int32_t values[kLanes];
    for (int j = 0; j < kLanes; ++j) values[j] = quantize(x[k + j]);
    for (int j = 0; j < kLanes; ++j) q[k + j] = static_cast<uint8_t>(values[j]);
  }
  for (; k < count; ++k) q[k] = static_cast<uint8_t>(quantize(x[k]));
  return row;
}

void DynamicQuantizedFullyConnected(const FullyConnectedParams& p,
                                    const float* input, const int8_t* weight,
                                    const float* weight_scale, const float* bias,
                                    float* output) {
  std::vector<uint8_t> q(p.in_features);
  for (int64_t n = 0; n < p.batch; ++n) {
    const DynamicRow row = QuantizeRowDynamic(input + n * p.in_features, p.in_features, q.data());
    for (int64_t o = 0; o < p.out_features; ++o) {
      float* out = output + n * p.out_features + o;
      if (!row.finite) {
        *out = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      const int8_t* w = weight + o * p.in_features;
      int64_t sum = 0;
      for (int64_t k = 0; k < p.in_features; ++k) {
        sum += (int64_t{q[k]} - row.zero_point) * int64_t{w[k]};
      }
      *out = p.activation.Apply(
          DynamicOutput(static_cast<float>(sum), row.scale, weight_scale[o], bias != nullptr ? bias[o] : 0.f));
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
