// TransposeFast against the reference Transpose, byte for byte, on every
// pool of PoolsUnderTest: every permutation of ranks 1 to 4 and random ones
// of rank 5 and 6, extents of 1 (dropped), odd sizes and sizes on both sides
// of the 16-element tiles, element sizes 1, 2, 4, 8 and 3 (no machine type),
// and sizes on both sides of the threshold where the pool is used.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/transpose_fast.h"
#include "mace/ops/ref/transpose.h"

namespace mace {
namespace ops {
namespace {

std::string Describe(const ref::TransposeParams& p) {
  std::string text = "shape";
  for (int64_t d : p.input_shape) text += " " + std::to_string(d);
  text += " perm";
  for (int64_t d : p.perm) text += " " + std::to_string(d);
  return text + " element " + std::to_string(p.element_size);
}

// Returns the number of cases checked; fails the test on the first mismatch.
int CheckCase(const ref::TransposeParams& p, std::mt19937* rng) {
  int64_t count = 1;
  for (int64_t d : p.input_shape) count *= d;
  const size_t bytes = static_cast<size_t>(count * p.element_size);
  std::vector<unsigned char> input(bytes);
  std::uniform_int_distribution<int> byte(0, 255);
  for (unsigned char& b : input) b = static_cast<unsigned char>(byte(*rng));
  std::vector<unsigned char> expected(bytes);
  ref::Transpose(p, input.data(), expected.data());
  for (const auto& pool : testing::PoolsUnderTest()) {
    // A byte no copy writes, so a skipped element shows.
    std::vector<unsigned char> got(bytes + 1, 0xA5);
    std::fill(got.begin(), got.end() - 1, static_cast<unsigned char>(~0xA5 & 0xFF));
    TransposeFast(p, input.data(), got.data(), pool.get());
    const std::string where = Describe(p) + " threads " + std::to_string(NumThreads(pool.get()));
    for (size_t i = 0; i < bytes; ++i) {
      if (got[i] != expected[i]) {
        ADD_FAILURE() << where << ": byte " << i << " is " << int{got[i]} << ", want "
                      << int{expected[i]};
        return 0;
      }
    }
    if (got[bytes] != 0xA5) {
      ADD_FAILURE() << where << ": wrote past the output";
      return 0;
    }
  }
  return 1;
}

TEST(TransposeFastTest, EveryPermutationOfSmallRanks) {
  const unsigned seed = 20261128;
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<std::vector<int64_t>> shapes = {
      {7},          {1},           {3, 5},        {16, 17},      {1, 33},
      {2, 3, 4},    {5, 1, 7},     {17, 16, 3},   {1, 1, 9},     {2, 3, 4, 5},
      {3, 16, 1, 17}, {4, 12, 32, 5}, {1, 128, 12, 32}, {2, 0, 3}};
  int cases = 0;
  for (const auto& shape : shapes) {
    std::vector<int64_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      for (int64_t element_size : {1, 2, 4, 8, 3}) {
        ref::TransposeParams p;
        p.element_size = element_size;
        p.input_shape = shape;
        p.perm = perm;
        cases += CheckCase(p, &rng);
        if (HasFailure()) return;
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  EXPECT_GT(cases, 500);
}

TEST(TransposeFastTest, RandomPermutationsOfRanksFiveAndSix) {
  const unsigned seed = 777;
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::uniform_int_distribution<int64_t> extent(1, 6);
  int cases = 0;
  for (int round = 0; round < 200; ++round) {
    const int rank = 5 + round % 2;
    ref::TransposeParams p;
    p.element_size = (round % 3 == 0) ? 1 : 4;
    for (int d = 0; d < rank; ++d) p.input_shape.push_back(extent(rng));
    p.perm.resize(rank);
    std::iota(p.perm.begin(), p.perm.end(), 0);
    std::shuffle(p.perm.begin(), p.perm.end(), rng);
    cases += CheckCase(p, &rng);
    if (HasFailure()) return;
  }
  EXPECT_EQ(cases, 200);
}

TEST(TransposeFastTest, LargeEnoughForThePool) {
  std::mt19937 rng(99);
  // Head split and merge of an attention layer, a single large matrix (split
  // by bands of rows), NCHW <-> NHWC and a strided gather.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{1, 128, 12, 32}, {0, 2, 1, 3}}, {{1, 12, 128, 32}, {0, 2, 1, 3}},
      {{1, 12, 128, 32}, {0, 1, 3, 2}}, {{1, 333, 517}, {0, 2, 1}},
      {{1, 32, 56, 56}, {0, 2, 3, 1}},  {{1, 56, 56, 32}, {0, 3, 1, 2}},
      {{6, 40, 5, 30}, {2, 0, 3, 1}}};
  for (const auto& [shape, perm] : cases) {
    ref::TransposeParams p;
    p.element_size = 4;
    p.input_shape = shape;
    p.perm = perm;
    EXPECT_EQ(CheckCase(p, &rng), 1);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
