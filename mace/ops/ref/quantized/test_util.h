// Test oracles for the uint8 kernels, written apart from the kernels: the
// requantization here divides an exact 128-bit product and rounds by the
// remainder, where the kernels add half and shift.
#ifndef MACE_OPS_REF_QUANTIZED_TEST_UTIL_H_
#define MACE_OPS_REF_QUANTIZED_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <vector>

#include "mace/ops/common/quantize.h"

namespace mace {
namespace ops {
namespace quantized_testing {

// round_half_away(x * multiplier / 2^right_shift) by 128-bit division.
inline int64_t OracleRequantize(int64_t x, const QuantizedMultiplier& m) {
  const __int128 numerator = static_cast<__int128>(x) * m.multiplier;
  const __int128 denominator = static_cast<__int128>(1) << m.right_shift;
  __int128 quotient = numerator / denominator;  // truncates toward zero
  const __int128 remainder = numerator % denominator;
  const __int128 twice = remainder < 0 ? -2 * remainder : 2 * remainder;
  if (twice >= denominator) quotient += numerator < 0 ? -1 : 1;
  return static_cast<int64_t>(quotient);
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
