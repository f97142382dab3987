// Invariants of every strategy on random inputs: plans are valid (no two
// tensors live at the same time share bytes or an object; every object
// holds its tensors), deterministic, and never below their lower bound.
// The seed is fixed and printed; MACE_MEMORY_TEST_SEED replays another.
#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/memory/lower_bounds.h"
#include "mace/core/memory/plan_checks.h"
#include "mace/core/memory/planner.h"
#include "mace/core/memory/strategies.h"
#include "mace/core/memory/test_util.h"

namespace mace {
namespace memory {
namespace {

using testing::Describe;
using testing::RandomImageRecords;
using testing::RandomRecords;
using testing::RandomShape;
using testing::TestSeed;

constexpr Strategy kObjectStrategies[] = {
    Strategy::kNaive,           Strategy::kEquality,     Strategy::kGreedyInOrder,
    Strategy::kGreedyByBreadth, Strategy::kGreedyBySize, Strategy::kGreedyBest,
    Strategy::kMinCostFlow,
};

constexpr int kRounds = 150;

TEST(RandomPlansTest, ObjectStrategies) {
  const uint32_t seed = TestSeed(7767517);
  std::printf("seed %u\n", seed);
  std::mt19937 random(seed);
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<UsageRecord> records = RandomRecords(&random, RandomShape(), round % 3 == 0);
    for (Strategy strategy : kObjectStrategies) {
      SCOPED_TRACE(std::string(StrategyName(strategy)) + " on " + Describe(records));
      ObjectsPlan plan, again;
      ASSERT_TRUE(PlanObjects(records, strategy, &plan).ok());
      const Status check = CheckObjectsAssignment(records, plan.assignment);
      ASSERT_TRUE(check.ok()) << check.message();
      EXPECT_GE(plan.total, plan.lower_bound);
      ASSERT_TRUE(PlanObjects(records, strategy, &again).ok());
      EXPECT_EQ(plan.assignment.object_ids, again.assignment.object_ids);
      EXPECT_EQ(plan.assignment.object_sizes, again.assignment.object_sizes);
    }
  }
}

TEST(RandomPlansTest, GreedyBestIsTheBetterOfSizeAndBreadth) {
  std::mt19937 random(TestSeed(20240601));
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<UsageRecord> records = RandomRecords(&random, RandomShape());
    ObjectsPlan best, by_size, by_breadth;
    ASSERT_TRUE(PlanObjects(records, Strategy::kGreedyBest, &best).ok());
    ASSERT_TRUE(PlanObjects(records, Strategy::kGreedyBySize, &by_size).ok());
    ASSERT_TRUE(PlanObjects(records, Strategy::kGreedyByBreadth, &by_breadth).ok());
    const ObjectsPlan& expected = by_breadth.total < by_size.total ? by_breadth : by_size;
    EXPECT_EQ(best.assignment.object_ids, expected.assignment.object_ids) << Describe(records);
  }
}

TEST(RandomPlansTest, OffsetStrategies) {
  const uint32_t seed = TestSeed(12345);
  std::printf("seed %u\n", seed);
  std::mt19937 random(seed);
  const size_t alignments[] = {1, 4, 64};
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<UsageRecord> records = RandomRecords(&random, RandomShape(), round % 3 == 0);
    PlanOptions options;
    options.alignment = alignments[round % 3];
    options.time_limit_ms = 20;
    for (int k = 0; k <= static_cast<int>(Strategy::kOptimal); ++k) {
      const Strategy strategy = static_cast<Strategy>(k);
      SCOPED_TRACE(std::string(StrategyName(strategy)) + " alignment " +
                   std::to_string(options.alignment) + " on " + Describe(records));
      OffsetsPlan plan, again;
      ASSERT_TRUE(PlanOffsets(records, strategy, options, &plan).ok());
      const Status check = CheckOffsetsAssignment(records, plan.assignment, options.alignment);
      ASSERT_TRUE(check.ok()) << check.message();
      EXPECT_GE(plan.assignment.total_size, plan.lower_bound);
      if (plan.optimal == std::optional<bool>(true) && strategy != Strategy::kOptimal) {
        EXPECT_EQ(plan.assignment.total_size, plan.lower_bound);
      }
      // OPTIMAL may stop on the clock; the others must repeat exactly.
      if (strategy == Strategy::kOptimal && plan.optimal != std::optional<bool>(true)) continue;
      ASSERT_TRUE(PlanOffsets(records, strategy, options, &again).ok());
      if (strategy == Strategy::kOptimal) {
        EXPECT_EQ(plan.assignment.total_size, again.assignment.total_size);
      } else {
        EXPECT_EQ(plan.assignment.offsets, again.assignment.offsets);
      }
    }
  }
}

TEST(RandomPlansTest, OptimalIsNeverWorseThanGreedy) {
  std::mt19937 random(TestSeed(99));
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<UsageRecord> records = RandomRecords(&random, RandomShape());
    PlanOptions options;
    options.time_limit_ms = 20;
    OffsetsPlan optimal, greedy;
    ASSERT_TRUE(PlanOffsets(records, Strategy::kOptimal, options, &optimal).ok());
    ASSERT_TRUE(PlanOffsets(records, Strategy::kGreedyBest, options, &greedy).ok());
    EXPECT_LE(optimal.assignment.total_size, greedy.assignment.total_size) << Describe(records);
    ASSERT_TRUE(optimal.optimal.has_value());
  }
}

TEST(RandomPlansTest, BySizeListsAndScanAgree) {
  // Dense graphs skip the overlap lists; both walks must give one plan.
  std::mt19937 random(TestSeed(8080));
  RandomShape shape;
  shape.max_tensors = 60;
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<UsageRecord> records = RandomRecords(&random, shape, round % 2 == 0);
    const size_t alignment = size_t{1} << (round % 4);
    for (bool best_fit : {true, false}) {
      const OffsetsAssignment lists = PlaceBySize(records, alignment, best_fit);
      const OffsetsAssignment scan = PlaceBySize(records, alignment, best_fit, 0);
      EXPECT_EQ(lists.offsets, scan.offsets) << Describe(records);
      EXPECT_EQ(lists.total_size, scan.total_size);
    }
  }
}

TEST(RandomPlansTest, OffsetsLowerBoundIsMaxLiveBytes) {
  std::mt19937 random(TestSeed(77));
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<UsageRecord> records = RandomRecords(&random, RandomShape());
    // Task by task, without the sweep.
    size_t expected = 0;
    for (TaskId task = 0; task <= 30; ++task) {
      size_t live = 0;
      for (const UsageRecord& record : records) {
        if (record.first <= task && task <= record.last) live += record.size;
      }
      expected = std::max(expected, live);
    }
    EXPECT_EQ(OffsetsLowerBound(records, 1), expected) << Describe(records);
    EXPECT_GE(OffsetsLowerBound(records, 16), expected);
  }
}

TEST(RandomPlansTest, ImageStrategies) {
  std::mt19937 random(TestSeed(4242));
  for (int round = 0; round < kRounds; ++round) {
    const std::vector<ImageUsageRecord> records = RandomImageRecords(&random, RandomShape());
    for (Strategy strategy : {Strategy::kNaive, Strategy::kEquality, Strategy::kGreedyInOrder}) {
      ImageObjectsPlan plan, again;
      ASSERT_TRUE(PlanImageObjects(records, strategy, &plan).ok());
      const Status check = CheckImageObjectsAssignment(records, plan.assignment);
      ASSERT_TRUE(check.ok()) << StrategyName(strategy) << ": " << check.message();
      EXPECT_GE(plan.total, plan.lower_bound);
      ASSERT_TRUE(PlanImageObjects(records, strategy, &again).ok());
      EXPECT_EQ(plan.assignment.object_ids, again.assignment.object_ids);
    }
  }
}

TEST(RandomPlansTest, DefaultStrategyOnAThousandTensors) {
  // The engine plans whole graphs with the default; a large input must stay
  // valid (the benchmark tracks its speed).
  std::mt19937 random(TestSeed(1000));
  RandomShape shape;
  shape.max_tensors = 1000;
  shape.max_task = 1000;
  shape.max_lifetime = 20;
  shape.max_size = 1 << 20;
  const std::vector<UsageRecord> records = RandomRecords(&random, shape);
  OffsetsPlan plan;
  ASSERT_TRUE(PlanOffsets(records, kDefaultStrategy, PlanOptions(), &plan).ok());
  EXPECT_TRUE(CheckOffsetsAssignment(records, plan.assignment, 1).ok());
  EXPECT_GE(plan.assignment.total_size, plan.lower_bound);
}

}  // namespace
}  // namespace memory
}  // namespace mace
