// Random operands of a uint8 convolution for the tests of its fast kernels:
// input bytes, a uint8 and an int8 filter, an int32 bias and the
// quantization (one multiplier for a uint8 filter, one per output channel
// for an int8 one), from a seeded generator.
#ifndef MACE_OPS_CPU_QUANTIZED_CONV_TEST_DATA_H_
#define MACE_OPS_CPU_QUANTIZED_CONV_TEST_DATA_H_

#include <cstdint>
#include <random>
#include <vector>

#include "mace/ops/common/quantize.h"
#include "mace/ops/ref/quantized/conv_2d.h"

namespace mace {
namespace ops {
namespace testing {

struct QuantizedConvData {
  std::vector<uint8_t> input, filter_u8;
  std::vector<int8_t> filter_i8;
  std::vector<int32_t> bias;
  ref::quantized::ConvQuantization quant;
  bool int8 = false;
  const void* filter() const {
    return int8 ? static_cast<const void*>(filter_i8.data()) : filter_u8.data();
  }
};

// `inputs` input bytes, out_c x depth weights of each type, out_c biases in
// [-40000, 40000], multipliers in [0.00005, 0.01]. With `extreme`, inputs
// and weights are only their two end values.
inline QuantizedConvData RandomQuantizedConv(int64_t inputs, int64_t out_c, int64_t depth,
                                             int32_t input_zp, int32_t filter_zp, bool int8,
                                             const OutputClamp& clamp, bool extreme,
                                             std::mt19937* rng) {
  std::uniform_int_distribution<int> byte(0, 255), signed_byte(-128, 127);
  std::uniform_int_distribution<int> bias_value(-40000, 40000);
  std::uniform_real_distribution<double> real(0.00005, 0.01);
  auto unsigned_value = [&] { return extreme ? (byte(*rng) < 128 ? 0 : 255) : byte(*rng); };
  auto signed_value = [&] { return extreme ? (byte(*rng) < 128 ? -128 : 127) : signed_byte(*rng); };
  QuantizedConvData d;
  d.int8 = int8;
  d.input.resize(inputs);
  for (uint8_t& v : d.input) v = static_cast<uint8_t>(unsigned_value());
  d.filter_u8.resize(out_c * depth);
  d.filter_i8.resize(out_c * depth);
  for (uint8_t& v : d.filter_u8) v = static_cast<uint8_t>(unsigned_value());
  for (int8_t& v : d.filter_i8) v = static_cast<int8_t>(signed_value());
  d.bias.resize(out_c);
  for (int32_t& v : d.bias) v = bias_value(*rng);
  d.quant.input_zero_point = input_zp;
  d.quant.filter_zero_point = int8 ? 0 : filter_zp;
  for (int64_t i = 0; i < (int8 ? out_c : 1); ++i) {
    QuantizedMultiplier m;
    // Scales in this range always make a valid multiplier.
    (void)MakeQuantizedMultiplier(real(*rng), "test", &m);
    d.quant.multipliers.push_back(m);
  }
  d.quant.output = clamp;
  return d;
}

}  // namespace testing
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_QUANTIZED_CONV_TEST_DATA_H_
