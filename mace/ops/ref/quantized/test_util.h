// Test oracles for the uint8 kernels, written apart from the kernels: the
// requantization here divides the exact product of magnitudes and rounds by
// the remainder, where the kernels add half and shift.
#ifndef MACE_OPS_REF_QUANTIZED_TEST_UTIL_H_
#define MACE_OPS_REF_QUANTIZED_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <vector>

#include "mace/ops/common/quantize.h"

namespace mace {
namespace ops {
namespace quantized_testing {

// round_half_away(x * multiplier / 2^right_shift) by division, for |x| <=
// 2^31 (the product then fits in 62 bits).
inline int64_t OracleRequantize(int64_t x, const QuantizedMultiplier& m) {
  const uint64_t magnitude = static_cast<uint64_t>(x < 0 ? -x : x);
  const uint64_t product = magnitude * static_cast<uint64_t>(m.multiplier);
  const uint64_t denominator = uint64_t{1} << m.right_shift;
  uint64_t quotient = product / denominator;
  if (2 * (product % denominator) >= denominator) ++quotient;
  return x < 0 ? -static_cast<int64_t>(quotient) : static_cast<int64_t>(quotient);
}

// The whole output step: saturate the sum to int32, requantize, add the
// zero point, clamp.
inline uint8_t OracleOutput(int64_t sum, const QuantizedMultiplier& m, const OutputClamp& clamp) {
  if (sum > INT32_MAX) sum = INT32_MAX;
  if (sum < INT32_MIN) sum = INT32_MIN;
  int64_t value = clamp.zero_point + OracleRequantize(sum, m);
  if (value < clamp.min) value = clamp.min;
  if (value > clamp.max) value = clamp.max;
  return static_cast<uint8_t>(value);
}

template <typename T>
std::vector<T> RandomInts(std::mt19937* rng, int64_t count, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> values(count);
  for (T& value : values) value = static_cast<T>(dist(*rng));
  return values;
}

inline QuantizedMultiplier Multiplier(double real) {
  QuantizedMultiplier m;
  MakeQuantizedMultiplier(real, "test", &m);
  return m;
}

}  // namespace quantized_testing
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_TEST_UTIL_H_
