// GatherFast against the reference Gather, bit for bit, on every pool of
// PoolsUnderTest: rows of one value (the plain loop), longer rows (memcpy),
// repeated and reversed indices, and sizes on both sides of
// the threshold where the pool is used.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/gather_fast.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/ref/gather.h"

namespace mace {
namespace ops {
namespace {

TEST(GatherFastTest, MatchesReferenceExactly) {
  const int64_t outers[] = {1, 2, 7};
  const int64_t axis_sizes[] = {1, 5, 300};
  const int64_t counts[] = {1, 4, 33, 1000};
  const int64_t inners[] = {1, 3, 15, 16, 17, 100};
  std::mt19937 rng(4242);
  int cases = 0;
  for (int64_t outer : outers) {
    for (int64_t axis_size : axis_sizes) {
      for (int64_t count : counts) {
        for (int64_t inner : inners) {
          ref::GatherParams p;
          p.outer = outer;
          p.axis_size = axis_size;
          p.count = count;
          p.inner = inner;
          std::uniform_real_distribution<float> value(-8.f, 8.f);
          std::vector<float> data(outer * axis_size * inner);
          for (float& v : data) v = value(rng);
          std::uniform_int_distribution<int64_t> index(0, axis_size - 1);
          std::vector<int64_t> indices(count);
          for (int64_t& i : indices) i = index(rng);
          if (count > 1) indices[count - 1] = indices[0];  // a repeat
          std::vector<float> expected(outer * count * inner);
          ref::Gather(p, data.data(), indices.data(), expected.data());
          for (const auto& pool : testing::PoolsUnderTest()) {
            // A value no copy writes, so a skipped row shows.
            std::vector<float> got(expected.size() + 1, -1234.5f);
            GatherFast(p, data.data(), indices.data(), got.data(), pool.get());
            const std::string where = "outer " + std::to_string(outer) + " axis " +
                                      std::to_string(axis_size) + " count " +
                                      std::to_string(count) + " inner " + std::to_string(inner) +
                                      " threads " + std::to_string(NumThreads(pool.get()));
            for (size_t i = 0; i < expected.size(); ++i) {
              ASSERT_EQ(got[i], expected[i]) << where << " at " << i;
            }
            ASSERT_EQ(got.back(), -1234.5f) << where << ": wrote past the output";
          }
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 3 * 3 * 4 * 6);
}

}  // namespace
}  // namespace ops
}  // namespace mace
