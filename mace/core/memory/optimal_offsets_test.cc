// OPTIMAL against brute force on small random instances. The brute force
// is independent of the search: it tries every order of the tensors and
// drops each one into the lowest aligned position where it fits. Some
// order reproduces any optimal packing (place tensors by their offset in
// it; each lands at or below its place there), so the best over all
// orders is the optimum.
#include "mace/core/memory/optimal_offsets.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/memory/plan_checks.h"
#include "mace/core/memory/planner.h"
#include "mace/core/memory/test_util.h"

namespace mace {
namespace memory {
namespace {

using testing::Describe;
using testing::RandomRecords;
using testing::RandomShape;
using testing::TestSeed;

bool Live(const UsageRecord& a, const UsageRecord& b) {
  return a.first <= b.last && b.first <= a.last;
}

size_t LowestFit(const std::vector<UsageRecord>& records, const std::vector<size_t>& placed,
                 const std::vector<size_t>& offsets, size_t i, size_t alignment) {
  for (size_t offset = 0;; offset += alignment) {
    bool fits = true;
    for (size_t j : placed) {
      if (!Live(records[i], records[j]) || records[j].size == 0 || records[i].size == 0) continue;
      if (offset < offsets[j] + records[j].size && offsets[j] < offset + records[i].size) {
        fits = false;
        break;
      }
    }
    if (fits) return offset;
  }
}

size_t BruteForceTotal(const std::vector<UsageRecord>& records, size_t alignment) {
  std::vector<size_t> order(records.size());
  std::iota(order.begin(), order.end(), 0);
  size_t best = static_cast<size_t>(-1);
  do {
    std::vector<size_t> offsets(records.size(), 0), placed;
    size_t total = 0;
    for (size_t i : order) {
      offsets[i] = LowestFit(records, placed, offsets, i, alignment);
      placed.push_back(i);
      total = std::max(total, offsets[i] + records[i].size);
    }
    best = std::min(best, total);
  } while (std::next_permutation(order.begin(), order.end()));
  return records.empty() ? 0 : best;
}

OffsetsPlan Optimal(const std::vector<UsageRecord>& records, size_t alignment) {
  PlanOptions options;
  options.alignment = alignment;
  options.time_limit_ms = 2000;
  OffsetsPlan plan;
  EXPECT_TRUE(PlanOffsets(records, Strategy::kOptimal, options, &plan).ok());
  const Status check = CheckOffsetsAssignment(records, plan.assignment, alignment);
  EXPECT_TRUE(check.ok()) << check.message();
  return plan;
}

RandomShape SmallShape() {
  RandomShape shape;
  shape.max_tensors = 7;
  shape.max_task = 5;
  shape.max_lifetime = 4;
  shape.max_size = 12;
  return shape;
}

TEST(OptimalOffsetsTest, MatchesBruteForce) {
  const uint32_t seed = TestSeed(31337);
  std::printf("seed %u\n", seed);
  std::mt19937 random(seed);
  for (int round = 0; round < 250; ++round) {
    const std::vector<UsageRecord> records = RandomRecords(&random, SmallShape(), true);
    const OffsetsPlan plan = Optimal(records, 1);
    EXPECT_EQ(plan.assignment.total_size, BruteForceTotal(records, 1)) << Describe(records);
    EXPECT_EQ(plan.optimal, std::optional<bool>(true)) << Describe(records);
  }
}

TEST(OptimalOffsetsTest, MatchesBruteForceWithAlignedSizes) {
  std::mt19937 random(TestSeed(2718));
  for (int round = 0; round < 150; ++round) {
    std::vector<UsageRecord> records = RandomRecords(&random, SmallShape());
    for (UsageRecord& record : records) record.size *= 4;
    const OffsetsPlan plan = Optimal(records, 4);
    EXPECT_EQ(plan.assignment.total_size, BruteForceTotal(records, 4)) << Describe(records);
    EXPECT_EQ(plan.optimal, std::optional<bool>(true)) << Describe(records);
  }
}

TEST(OptimalOffsetsTest, UnalignedSizesAreNeverClaimedWrongly) {
  // The search packs sizes rounded up to the alignment, which can cost a
  // few bytes on the topmost tensor; a plan it calls optimal must be.
  std::mt19937 random(TestSeed(1618));
  for (int round = 0; round < 150; ++round) {
    const std::vector<UsageRecord> records = RandomRecords(&random, SmallShape());
    const OffsetsPlan plan = Optimal(records, 8);
    const size_t best = BruteForceTotal(records, 8);
    EXPECT_GE(plan.assignment.total_size, best) << Describe(records);
    if (plan.optimal == std::optional<bool>(true)) {
      EXPECT_EQ(plan.assignment.total_size, best) << Describe(records);
    }
  }
}

TEST(OptimalOffsetsTest, BeatsGreedyWhereGreedyFails) {
  // Largest first: 7 at 0, 6 above it at 7, 4 at 0, the first 3 in the gap
  // [4, 7) and the second 3 on top at 13, 16 bytes. Stacking the two 3s
  // under the 4 instead lets everything fit in the 13 live at task 3.
  const std::vector<UsageRecord> records = {{4, 0, 1}, {3, 1, 2}, {3, 1, 2}, {6, 2, 4}, {7, 3, 5}};
  OffsetsPlan greedy;
  ASSERT_TRUE(PlanOffsets(records, Strategy::kGreedyBySize, PlanOptions(), &greedy).ok());
  EXPECT_EQ(greedy.assignment.offsets, (std::vector<size_t>{0, 4, 13, 7, 0}));
  EXPECT_EQ(greedy.assignment.total_size, 16u);
  const OffsetsPlan optimal = Optimal(records, 1);
  EXPECT_EQ(optimal.assignment.total_size, 13u);
  EXPECT_EQ(optimal.lower_bound, 13u);
  EXPECT_EQ(optimal.optimal, std::optional<bool>(true));
}

// Cuts the rectangle [0, tasks) x [0, bytes) into `pieces` tensors by
// random guillotine cuts across time or across memory. The pieces tile it
// exactly, so the arena of `bytes` is optimal and has no slack anywhere,
// the hardest case for a search that must prove it.
std::vector<UsageRecord> PerfectPacking(std::mt19937* random, int pieces, TaskId tasks,
                                        size_t bytes) {
  struct Box {
    TaskId first, last;
    size_t offset, size;
  };
  std::vector<Box> boxes = {{0, tasks - 1, 0, bytes}};
  for (int attempt = 0; attempt < 100 && static_cast<int>(boxes.size()) < pieces; ++attempt) {
    const size_t k = (*random)() % boxes.size();
    const Box box = boxes[k];
    if ((*random)() % 2 == 0 && box.last > box.first) {
      const TaskId cut = box.first + 1 + (*random)() % (box.last - box.first);
      boxes[k].last = cut - 1;
      boxes.push_back({cut, box.last, box.offset, box.size});
    } else if (box.size > 1) {
      const size_t cut = 1 + (*random)() % (box.size - 1);
      boxes[k].size = cut;
      boxes.push_back({box.first, box.last, box.offset + cut, box.size - cut});
    }
  }
  std::vector<UsageRecord> records;
  for (const Box& box : boxes) records.push_back({box.size, box.first, box.last});
  std::shuffle(records.begin(), records.end(), *random);
  return records;
}

TEST(OptimalOffsetsTest, FindsPerfectPackings) {
  const uint32_t seed = TestSeed(4096);
  std::printf("seed %u\n", seed);
  std::mt19937 random(seed);
  for (int round = 0; round < 40; ++round) {
    const std::vector<UsageRecord> records = PerfectPacking(&random, 10 + round, 24, 256);
    const OffsetsPlan plan = Optimal(records, 1);
    EXPECT_EQ(plan.lower_bound, 256u);
    EXPECT_EQ(plan.assignment.total_size, 256u) << Describe(records);
    EXPECT_EQ(plan.optimal, std::optional<bool>(true));
  }
}

TEST(OptimalOffsetsTest, ZeroTimeStillReturnsAValidPlan) {
  std::mt19937 random(TestSeed(5));
  RandomShape shape;
  shape.max_tensors = 60;
  const std::vector<UsageRecord> records = RandomRecords(&random, shape);
  const OptimalResult result = OptimalOffsets(records, 1, 0, 0);
  EXPECT_TRUE(CheckOffsetsAssignment(records, result.assignment, 1).ok());
}

TEST(OptimalOffsetsTest, StepLimitStopsEveryRunAtTheSamePlan) {
  // Perfect packings of 60 pieces take the search many steps; cut at
  // 20,000 with all the time in the world, two runs must agree byte for
  // byte and stay within the budget.
  const uint32_t seed = TestSeed(65537);
  std::printf("seed %u\n", seed);
  std::mt19937 random(seed);
  constexpr int64_t kSteps = 20000;
  int cut_short = 0;
  for (int round = 0; round < 10; ++round) {
    const std::vector<UsageRecord> records = PerfectPacking(&random, 60, 40, 4096);
    const OptimalResult larger = OptimalOffsets(records, 1, 60000, 10 * kSteps);
    const OptimalResult first = OptimalOffsets(records, 1, 60000, kSteps);
    const OptimalResult second = OptimalOffsets(records, 1, 60000, kSteps);
    EXPECT_LE(first.steps, kSteps) << Describe(records);
    EXPECT_EQ(first.steps, second.steps) << Describe(records);
    EXPECT_EQ(first.nodes, second.nodes) << Describe(records);
    EXPECT_EQ(first.assignment.offsets, second.assignment.offsets) << Describe(records);
    EXPECT_TRUE(CheckOffsetsAssignment(records, first.assignment, 1).ok()) << Describe(records);
    if (larger.steps > kSteps) ++cut_short;
  }
  EXPECT_GT(cut_short, 0) << "no instance needed more than " << kSteps << " steps";
}

TEST(OptimalOffsetsTest, NegativeStepLimitIsRefused) {
  PlanOptions options;
  options.step_limit = -1;
  OffsetsPlan plan;
  EXPECT_FALSE(PlanOffsets({{8, 0, 0}}, Strategy::kOptimal, options, &plan).ok());
}

TEST(OptimalOffsetsTest, ZeroSizeTensorsSitAtZero) {
  const OffsetsPlan plan = Optimal({{0, 0, 3}, {8, 0, 1}, {0, 2, 2}, {8, 1, 3}}, 1);
  EXPECT_EQ(plan.assignment.offsets[0], 0u);
  EXPECT_EQ(plan.assignment.offsets[2], 0u);
  EXPECT_EQ(plan.assignment.total_size, 16u);
}

}  // namespace
}  // namespace memory
}  // namespace mace
