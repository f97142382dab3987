// The float to uint8 kernel of every kernel table that has one against
// ref::quantized::Quantize, bit for bit: every tail length, random values
// over and beyond the output range, exact halves of the scale (the
// rounding ties), values one float step either side of a tie, signed
// zeros, NaN, infinities, denormals and huge values, zero points 0, 128
// and 255.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/ref/quantized/quantize.h"

namespace mace {
namespace ops {
namespace {

std::vector<float> Inputs(std::mt19937* rng, float scale, int64_t count) {
  std::uniform_real_distribution<float> wide(-300.f, 300.f);
  std::uniform_int_distribution<int> tie(-300, 300);
  std::uniform_int_distribution<int> kind(0, 9);
  const float specials[] = {0.f,
                            -0.f,
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(),
                            0.5f * scale,
                            -0.5f * scale};
  std::vector<float> values(count);
  for (float& v : values) {
    const int k = kind(*rng);
    if (k < 4) {
      v = wide(*rng) * scale;
    } else if (k < 7) {
      // A tie, or a float step above or below one.
      v = (tie(*rng) + 0.5f) * scale;
      if (k == 5) v = std::nextafter(v, std::numeric_limits<float>::infinity());
      if (k == 6) v = std::nextafter(v, -std::numeric_limits<float>::infinity());
    } else {
      v = specials[(*rng)() % (sizeof(specials) / sizeof(specials[0]))];
    }
  }
  return values;
}

TEST(QuantizeUint8Kernel, MatchesReference) {
  std::mt19937 rng(424242);
  int tables = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantize_uint8 == nullptr) continue;
    ++tables;
    for (float scale : {1.f, 0.0078125f, 0.0235294f, 3.7e-5f, 17.25f}) {
      for (int32_t zero_point : {0, 128, 255}) {
        for (int64_t count = 0; count <= 70; ++count) {
          const std::vector<float> input = Inputs(&rng, scale, count);
          std::vector<uint8_t> expected(count), got(count + 1, 0xAB);
          ref::quantized::Quantize(input.data(), count, scale, zero_point, expected.data());
          table->quantize_uint8(input.data(), count, scale, zero_point, got.data());
          for (int64_t i = 0; i < count; ++i) {
            ASSERT_EQ(got[i], expected[i]) << table->name << " scale " << scale << " zero point "
                                           << zero_point << " x " << input[i] << " at " << i;
          }
          ASSERT_EQ(got[count], 0xAB) << table->name << " wrote past the end";
        }
      }
    }
  }
  if (tables == 0) GTEST_SKIP() << "no fast Quantize kernel on this CPU";
}

// Floats at and a few float steps around every whole number and half of the
// scale (in double, as the rule divides) up to well past the clamp, and far
// past it (quotients near 2^28 to 2^40), for scales that are not powers of
// two: the kernels that avoid the division must still round each one as
// the reference does.
TEST(QuantizeUint8Kernel, MatchesReferenceAroundEveryThreshold) {
  int tables = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantize_uint8 == nullptr) continue;
    ++tables;
    // 0x1p-100 and 0x1p100 bound the AVX-512 kernel's float path; the
    // scales just past them take its double path.
    for (float scale : {0.1f, 0.0235294f, 0.00392157f, 1.7f, 3.3333333f, 1e-30f, 7e30f,
                        0x1p-100f, 0x1.fffffep-101f, 0x1p100f, 0x1.000002p100f, 0.0117647f}) {
      std::vector<float> input;
      auto around = [&](double point) {
        float v = static_cast<float>(point);
        for (int s = 0; s < 3; ++s) v = std::nextafter(v, -std::numeric_limits<float>::infinity());
        for (int s = 0; s < 7; ++s) {
          input.push_back(v);
          v = std::nextafter(v, std::numeric_limits<float>::infinity());
        }
      };
      for (int k = -600; k <= 600; ++k) {
        around(k * static_cast<double>(scale));
        around((k + 0.5) * static_cast<double>(scale));
      }
      for (double far : {2.68435456e8, 2.68435457e8, 1e9, 2.147483648e9, 1.1e12}) {
        around(far * scale);
        around(-far * scale);
      }
      for (int32_t zero_point : {0, 37, 128, 255}) {
        const int64_t count = static_cast<int64_t>(input.size());
        std::vector<uint8_t> expected(count), got(count);
        ref::quantized::Quantize(input.data(), count, scale, zero_point, expected.data());
        table->quantize_uint8(input.data(), count, scale, zero_point, got.data());
        for (int64_t i = 0; i < count; ++i) {
          ASSERT_EQ(got[i], expected[i]) << table->name << " scale " << scale << " zero point "
                                         << zero_point << " x " << input[i] << " at " << i;
        }
      }
    }
  }
  if (tables == 0) GTEST_SKIP() << "no fast Quantize kernel on this CPU";
}

}  // namespace
}  // namespace ops
}  // namespace mace
