// QuantizeLinear's and DequantizeLinear's CPU kernels (and QuantizeLinear
// with dequantize, against the two reference kernels in turn), bit for bit: every integer type,
// per-tensor and per-axis scales (rows that cross the kernel's parallel pieces, and single-element
// rows), zero points absent, in range, out of the type's range, fractional and huge (the last two
// take the reference path), negative and zero scales, ties, NaN, infinities, signed zeros and tails
// of every length below the kernel's block, on no pool and on pools of 2 and 3 threads.
#include "mace/ops/qdq_linear.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;
using testing::TestCpuRuntime;

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Layout {
  std::vector<int64_t> shape;
  int64_t axis;  // -1 with a one-value scale: per tensor
  bool per_tensor;
};

// x with the values that stress rounding and clamping spread through it.
std::vector<float> Data(int64_t count, uint32_t seed) {
  std::vector<float> x = RandomFloats(count, seed, -300.f, 300.f);
  const float specials[] = {std::nanf(""), kInf, -kInf, 0.f,   -0.f,   0.125f, -0.125f,
                            0.375f,        2.5f, -2.5f, 1e30f, -1e30f, 1e-40f, 127.5f};
  for (int64_t i = 0; i < count; i += 7) x[i] = specials[(i / 7) % std::size(specials)];
  return x;
}

std::vector<float> RunOp(const std::string& type, const Layout& l, const std::vector<float>& x,
                         const std::vector<float>& scale, const std::vector<float>& zp,
                         const std::string& to, Runtime* runtime, bool dequantize = false) {
  const std::vector<int64_t> scale_shape = {static_cast<int64_t>(scale.size())};
  OpTester t(type, RegisterQdqLinear);
  t.Input("x", l.shape, x).Input("scale", scale_shape, scale);
  if (!zp.empty()) t.Input("zp", scale_shape, zp);
  t.Output("y").Arg("axis", l.axis);
  if (!to.empty()) t.Arg("to", to);
  if (dequantize) t.Arg("dequantize", 1);
  if (runtime != nullptr) t.WithRuntime(runtime);
  const MaceStatus status = t.Run();
  EXPECT_TRUE(status.ok()) << status.information();
  return status.ok() ? t.OutputData("y") : std::vector<float>();
}

ref::QdqLinearParams ParamsOf(const Layout& l) {
  ref::QdqLinearParams p;
  const int64_t rank = static_cast<int64_t>(l.shape.size());
  const int64_t axis = l.per_tensor ? 0 : (l.axis < 0 ? l.axis + rank : l.axis);
  p.grouping = l.per_tensor ? ref::QdqGrouping::PER_TENSOR : ref::QdqGrouping::PER_AXIS;
  for (int64_t d = 0; d < axis; ++d) p.outer *= l.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) p.inner *= l.shape[d];
  p.axis_len = l.shape[axis];
  return p;
}

void ExpectSameBits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  int mismatches = 0;
  for (size_t i = 0; i < got.size() && mismatches < 5; ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      ADD_FAILURE() << "at " << i << ": got " << got[i] << ", want " << want[i];
      ++mismatches;
    }
  }
}

TEST(QdqLinearCpuTest, MatchesReferenceBitForBit) {
  const Layout layouts[] = {
      {{3, 11000}, -1, true},    // per tensor, over several parallel pieces
      {{2, 7, 3001}, 1, false},  // per axis, rows crossing the pieces
      {{5, 33}, -1, false},      // per axis along the last axis: rows of one
      {{1, 4, 13}, 1, false},    // short rows: a block and a tail
  };
  struct Type {
    const char* name;
    ref::CastType type;
    float low, high;
  };
  const Type types[] = {
      {"UINT8", ref::CastType::UINT8, 0, 255},     {"INT8", ref::CastType::INT8, -128, 127},
      {"UINT16", ref::CastType::UINT16, 0, 65535}, {"INT16", ref::CastType::INT16, -32768, 32767},
      {"UINT4", ref::CastType::UINT4, 0, 15},      {"INT4", ref::CastType::INT4, -8, 7}};
  enum ZeroPoints { kNone, kInRange, kOutOfRange, kFractional, kHuge };
  std::vector<std::shared_ptr<TestCpuRuntime>> runtimes = testing::RuntimesUnderTest();
  uint32_t seed = 4100;
  for (const Layout& l : layouts) {
    const ref::QdqLinearParams base = ParamsOf(l);
    const int64_t scales = l.per_tensor ? 1 : base.axis_len;
    const std::vector<float> x = Data(NumElements(l.shape), ++seed);
    for (const Type& type : types) {
      for (int zps : {kNone, kInRange, kOutOfRange, kFractional, kHuge}) {
        ++seed;
        SCOPED_TRACE(std::string(type.name) + " zero points " + std::to_string(zps) + " seed " +
                     std::to_string(seed) + " shape " + std::to_string(l.shape.back()));
        // Powers of two make exact ties of x / scale; one negative and, per
        // axis, one zero scale.
        std::vector<float> scale(scales);
        for (int64_t s = 0; s < scales; ++s)
          scale[s] = std::ldexp(1.f, static_cast<int>(s % 5) - 2);
        if (scales > 1) scale[1] = 0.f;
        if (scales > 2) scale[2] = -0.75f;
        std::vector<float> zp;
        if (zps != kNone) {
          zp.resize(scales);
          for (int64_t s = 0; s < scales; ++s) {
            const float span = type.high - type.low;
            zp[s] = zps == kInRange      ? type.low + std::fmod(37.f * (s + 1), span + 1)
                    : zps == kOutOfRange ? (s % 2 == 0 ? type.high + 3 : type.low - 5)
                    : zps == kFractional ? type.low + 2.5f
                                         : 1e6f;
          }
        }
        ref::QdqLinearParams p = base;
        p.to = type.type;
        std::vector<float> want_q(x.size()), want_dq(x.size()), want_raw(x.size());
        ref::QuantizeLinear(p, x.data(), scale.data(), zp.empty() ? nullptr : zp.data(),
                            want_q.data());
        ref::DequantizeLinear(p, want_q.data(), scale.data(), zp.empty() ? nullptr : zp.data(),
                              want_dq.data());
        // Dequantizing values that are not integers, as a float graph may.
        ref::DequantizeLinear(p, x.data(), scale.data(), zp.empty() ? nullptr : zp.data(),
                              want_raw.data());
        for (size_t r = 0; r < runtimes.size(); ++r) {
          const auto& runtime = runtimes[r];
          SCOPED_TRACE("runtime " + std::to_string(r) + " (none, 2 or 3 threads)");
          ExpectSameBits(RunOp("QuantizeLinear", l, x, scale, zp, type.name, runtime.get()),
                         want_q);
          ExpectSameBits(RunOp("DequantizeLinear", l, want_q, scale, zp, "", runtime.get()),
                         want_dq);
          // The fake quantization in one op: both steps of the reference.
          ExpectSameBits(RunOp("QuantizeLinear", l, x, scale, zp, type.name, runtime.get(), true),
                         want_dq);
          ExpectSameBits(RunOp("DequantizeLinear", l, x, scale, zp, "", runtime.get()), want_raw);
        }
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
