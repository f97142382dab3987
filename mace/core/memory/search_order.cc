#include "mace/core/memory/search_order.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>

namespace mace {
namespace memory {
namespace {

enum Key { kSectionTotal = 0, kLength = 1, kArea = 2 };
constexpr int kNumFixed = 3;
constexpr std::array<std::array<Key, 3>, kNumFixed> kFixed = {{
    {kSectionTotal, kLength, kArea},
    {kSectionTotal, kArea, kLength},
    {kLength, kArea, kSectionTotal},
}};

// Sizes and lifetimes are each below 2^41, so their product may not fit.
int64_t SaturatingProduct(int64_t a, int64_t b) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) {
    return std::numeric_limits<int64_t>::max();
  }
  return a * b;
}

}  // namespace

int NumOrderings(int round) { return kNumFixed + std::min(round, 4); }

std::vector<int> RankBuffers(const SearchProblem& problem, const std::vector<int>& buffers,
                             const std::vector<int64_t>& section_bytes, int ordering, int round) {
  const size_t n = problem.sizes.size();
  std::vector<std::array<int64_t, 4>> keys(n);
  std::mt19937_64 random(static_cast<uint64_t>(round) * 1000003u + ordering);
  const std::array<Key, 3>& order = kFixed[ordering % kNumFixed];
  // Perturbed orderings: the first key is coarsened into a few buckets, so
  // near ties are broken by the later keys, and a random last key breaks
  // exact ties.
  const bool perturbed = ordering >= kNumFixed;
  const int64_t buckets = int64_t{8} << (random() % 6);
  for (int b : buffers) {
    int64_t total = 0;
    for (int s = problem.begin[b]; s < problem.end[b]; ++s)
      total = std::max(total, section_bytes[s]);
    const int64_t values[] = {total, problem.lengths[b],
                              SaturatingProduct(problem.sizes[b], problem.lengths[b])};
    keys[b] = {values[order[0]], values[order[1]], values[order[2]],
               perturbed ? static_cast<int64_t>(random() >> 1) : 0};
  }
  if (perturbed) {
    int64_t largest = 1;
    for (int b : buffers) largest = std::max(largest, keys[b][0]);
    for (int b : buffers) {
      keys[b][0] = static_cast<int64_t>(static_cast<double>(keys[b][0]) * buckets / largest);
    }
  }
  std::vector<int> ranked = buffers;
  std::sort(ranked.begin(), ranked.end(), [&keys](int a, int b) {
    if (keys[a] != keys[b]) return keys[a] > keys[b];
    return a < b;
  });
  std::vector<int> rank(n, 0);
  for (size_t r = 0; r < ranked.size(); ++r) rank[ranked[r]] = static_cast<int>(r);
  return rank;
}

}  // namespace memory
}  // namespace mace
