// The clamp of half tensors (a residual sum's ReLU or ReLU6) against the
// float clamp of the decoded values, on every half bit pattern but NaNs.
#include "mace/ops/cpu/eltwise_half.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace mace {
namespace ops {
namespace {

// A half's value, decoded from its fields.
float Decode(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const float sign = (h & 0x8000) != 0 ? -1.f : 1.f;
  if (exponent == 0x1f) return mantissa == 0 ? sign * INFINITY : NAN;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  return sign * std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
}

TEST(EltwiseHalfTest, ClampMatchesTheFloatClamp) {
  std::vector<uint16_t> all;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if (!std::isnan(Decode(static_cast<uint16_t>(h)))) all.push_back(static_cast<uint16_t>(h));
  }
  // No bound (ReLU), ReLU6 (0x4600), a subnormal bound and 0; every
  // count's tail (a vector's worth and less) from the end of the data.
  for (uint16_t limit : {uint16_t{0x7c00}, uint16_t{0x4600}, uint16_t{0x0003}, uint16_t{0}}) {
    for (int64_t count : {static_cast<int64_t>(all.size()), int64_t{7}, int64_t{9}}) {
      std::vector<uint16_t> data(all.end() - count, all.end());
      data.push_back(0xbc00);  // -1, past the end: left alone
      ClampHalves(data.data(), count, limit);
      EXPECT_EQ(data.back(), 0xbc00) << "wrote past the end";
      for (int64_t i = 0; i < count; ++i) {
        const uint16_t in = all[all.size() - count + i];
        const float want = std::fmin(std::fmax(Decode(in), 0.f), Decode(limit));
        ASSERT_EQ(Decode(data[i]), want) << std::hex << "in " << in << " limit " << limit;
        ASSERT_EQ(data[i] & 0x8000, 0) << std::hex << "in " << in << ": no -0";
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
