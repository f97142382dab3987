// Hand-worked shared-object plans, one strategy at a time. Each expected
// assignment was derived on paper from the rules in the strategy's source
// comment; the comments next to them give the deciding steps.
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/memory/plan_checks.h"
#include "mace/core/memory/planner.h"

namespace mace {
namespace memory {
namespace {

using Ids = std::vector<size_t>;
using Sizes = std::vector<size_t>;

// TFLite's ChainRecords example: every tensor overlaps only its neighbours.
const std::vector<UsageRecord> kChain = {
    {16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5},
};

ObjectsPlan Plan(const std::vector<UsageRecord>& records, Strategy strategy) {
  ObjectsPlan plan;
  const Status status = PlanObjects(records, strategy, &plan);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(CheckObjectsAssignment(records, plan.assignment).ok());
  return plan;
}

void ExpectPlan(const std::vector<UsageRecord>& records, Strategy strategy, const Ids& ids,
                const Sizes& sizes) {
  const ObjectsPlan plan = Plan(records, strategy);
  EXPECT_EQ(plan.assignment.object_ids, ids) << StrategyName(strategy);
  EXPECT_EQ(plan.assignment.object_sizes, sizes) << StrategyName(strategy);
  size_t total = 0;
  for (size_t size : sizes) total += size;
  EXPECT_EQ(plan.total, total);
}

TEST(ChainRecordsTest, Naive) {
  ExpectPlan(kChain, Strategy::kNaive, {0, 1, 2, 3, 4}, {16, 8, 64, 32, 8});
}

TEST(ChainRecordsTest, Equality) {
  // Only the last 8-byte tensor finds an object of its exact size: tensor
  // 1's, released at task 3.
  ExpectPlan(kChain, Strategy::kEquality, {0, 1, 2, 3, 1}, {16, 8, 64, 32});
}

TEST(ChainRecordsTest, GreedyInOrder) {
  // 64 grows object 0 (16), 32 grows object 1 (8), and the last 8 takes
  // object 0 again, the only free one.
  ExpectPlan(kChain, Strategy::kGreedyInOrder, {0, 1, 0, 1, 0}, {64, 32});
}

TEST(ChainRecordsTest, GreedyByBreadth) {
  // Task 3 (96 bytes) goes first: 64 -> object 0, 32 -> object 1. Then task
  // 2 puts 8 into object 1, task 4 puts 8 into object 0 and task 1 puts 16
  // into object 0.
  ExpectPlan(kChain, Strategy::kGreedyByBreadth, {0, 1, 0, 1, 0}, {64, 32});
}

TEST(ChainRecordsTest, GreedyBySize) {
  // Positional maxima are {64, 32}; 64 is alone at position 0 and goes
  // first. Tensors 0 and 4 are then both 1 task away from object 0; the
  // larger one (16) wins the tie.
  ExpectPlan(kChain, Strategy::kGreedyBySize, {0, 1, 0, 1, 0}, {64, 32});
}

TEST(ChainRecordsTest, GreedyBestKeepsSizeOnTie) {
  ExpectPlan(kChain, Strategy::kGreedyBest, {0, 1, 0, 1, 0}, {64, 32});
}

TEST(ChainRecordsTest, MinCostFlow) {
  // The only cost-96 flow: 0 -> 2 -> 4 (cost 16 + 48 + 0) and 1 -> 3
  // (cost 8 + 24).
  ExpectPlan(kChain, Strategy::kMinCostFlow, {0, 1, 0, 1, 0}, {64, 32});
}

TEST(ChainRecordsTest, LowerBoundIsSumOfPositionalMaxima) {
  const ObjectsPlan plan = Plan(kChain, Strategy::kGreedyBySize);
  EXPECT_EQ(plan.lower_bound, 96u);
  EXPECT_EQ(plan.optimal, std::optional<bool>(true));
  EXPECT_EQ(Plan(kChain, Strategy::kNaive).optimal, std::nullopt);
}

TEST(EqualityTest, ReusesMostRecentlyReleasedObject) {
  // Objects 0 and 1 are released together, in (last_task, id) order, so
  // object 1 is the most recent and is reused first (LIFO).
  ExpectPlan({{8, 0, 0}, {8, 0, 0}, {8, 1, 1}, {8, 1, 1}}, Strategy::kEquality, {0, 1, 1, 0},
             {8, 8});
  // Object 1 ends first (task 0), object 0 later (task 1): object 0 is
  // the most recently released.
  ExpectPlan({{8, 0, 1}, {8, 0, 0}, {8, 2, 2}}, Strategy::kEquality, {0, 1, 0}, {8, 8});
}

TEST(EqualityTest, TouchingLifetimesNeverShare) {
  ExpectPlan({{8, 0, 1}, {8, 1, 2}, {8, 2, 3}}, Strategy::kEquality, {0, 1, 0}, {8, 8});
}

TEST(GreedyInOrderTest, GrowsSmallerObjectOnlyWhenStrictlyCheaper) {
  // Tensor 10 against free objects 6 and 14: both waste 4, so the larger
  // one (A) is taken.
  ExpectPlan({{6, 0, 0}, {14, 0, 0}, {10, 1, 1}}, Strategy::kGreedyInOrder, {0, 1, 1}, {6, 14});
  // With 7 instead of 6, growing it wastes 3 < 4, so it grows to 10.
  ExpectPlan({{7, 0, 0}, {14, 0, 0}, {10, 1, 1}}, Strategy::kGreedyInOrder, {0, 1, 0}, {10, 14});
}

TEST(GreedyInOrderTest, SmallestFittingObject) {
  ExpectPlan({{20, 0, 0}, {12, 0, 0}, {30, 0, 0}, {11, 1, 1}}, Strategy::kGreedyInOrder,
             {0, 1, 2, 1}, {20, 12, 30});
}

TEST(GreedyByBreadthTest, LargestSmallerObjectWhenNoneFits) {
  // Task 0 (20 bytes) goes first and makes objects 10, 6 and 4. The 12-byte
  // tensor of task 2 fits none of them and grows the largest, 10.
  ExpectPlan({{10, 0, 0}, {6, 0, 0}, {4, 0, 0}, {12, 2, 2}}, Strategy::kGreedyByBreadth,
             {0, 1, 2, 0}, {12, 6, 4});
}

TEST(GreedyByBreadthTest, SmallestFittingObject) {
  // A 5-byte tensor: 10 and 6 fit, 6 is smaller; 4 does not fit.
  ExpectPlan({{10, 0, 0}, {6, 0, 0}, {4, 0, 0}, {5, 2, 2}}, Strategy::kGreedyByBreadth,
             {0, 1, 2, 1}, {10, 6, 4});
}

// Six tensors on which GREEDY_BY_BREADTH beats GREEDY_BY_SIZE.
const std::vector<UsageRecord> kBreadthWins = {
    {6, 0, 2}, {9, 0, 1}, {9, 1, 2}, {6, 2, 3}, {7, 3, 3}, {1, 3, 4},
};

TEST(GreedyBySizeTest, SizeDistancePriority) {
  // Positional maxima {9, 9, 6}. Position 1: tensors 1, 2, 4. Tensor 1 (9,
  // lower index than 2) opens object 0; tensor 4 is 2 tasks from it and
  // joins; tensor 2 opens object 1; tensor 5 (distance 1) joins it; the two
  // 6-byte tensors overlap everything left and open objects 2 and 3.
  ExpectPlan(kBreadthWins, Strategy::kGreedyBySize, {2, 0, 1, 3, 0, 1}, {9, 9, 6, 6});
}

TEST(GreedyByBreadthTest, WidestTaskFirst) {
  // Task 1 (24 bytes): 9 -> object 0, 9 -> object 1, 6 -> object 2. Task 2
  // puts tensor 3 into object 0; task 3 puts 7 into object 1 (object 2, 6
  // bytes, is too small and 9 fits) and 1 into object 2.
  ExpectPlan(kBreadthWins, Strategy::kGreedyByBreadth, {2, 0, 1, 0, 1, 2}, {9, 9, 6});
}

TEST(GreedyBestTest, SwitchesToBreadthOnlyWhenStrictlySmaller) {
  ExpectPlan(kBreadthWins, Strategy::kGreedyBest, {2, 0, 1, 0, 1, 2}, {9, 9, 6});
  EXPECT_EQ(Plan(kBreadthWins, Strategy::kGreedyBest).lower_bound, 24u);
}

TEST(MinCostFlowTest, ReusesAcrossGapsAtLeastCost) {
  // Tensor 2 (10) can reuse 0 (4, cost 6) or 1 (10, cost 0). The flow
  // takes 1 -> 2 and leaves 0 alone.
  ExpectPlan({{4, 0, 0}, {10, 0, 0}, {10, 1, 1}}, Strategy::kMinCostFlow, {0, 1, 1}, {4, 10});
}

TEST(PlanObjectsTest, EmptyInput) {
  for (Strategy strategy :
       {Strategy::kNaive, Strategy::kEquality, Strategy::kGreedyInOrder, Strategy::kGreedyByBreadth,
        Strategy::kGreedyBySize, Strategy::kGreedyBest, Strategy::kMinCostFlow}) {
    ExpectPlan({}, strategy, {}, {});
  }
}

TEST(PlanObjectsTest, RejectsBadInput) {
  ObjectsPlan plan;
  EXPECT_FALSE(PlanObjects({{8, 3, 2}}, Strategy::kNaive, &plan).ok());
  EXPECT_FALSE(PlanObjects({{8, -1, 2}}, Strategy::kNaive, &plan).ok());
  EXPECT_FALSE(PlanObjects({{kMaxTensorSize + 1, 0, 0}}, Strategy::kNaive, &plan).ok());
  const Status status = PlanObjects({{8, 0, 0}}, Strategy::kOptimal, &plan);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("optimal"), std::string::npos);
}

TEST(StrategyNameTest, RoundTrips) {
  for (int k = 0; k <= 7; ++k) {
    Strategy strategy = Strategy::kNaive;
    ASSERT_TRUE(ParseStrategy(StrategyName(static_cast<Strategy>(k)), &strategy));
    EXPECT_EQ(static_cast<int>(strategy), k);
  }
  Strategy strategy = Strategy::kNaive;
  EXPECT_TRUE(ParseStrategy("GREEDY_BY_SIZE", &strategy));
  EXPECT_EQ(strategy, Strategy::kGreedyBySize);
  EXPECT_FALSE(ParseStrategy("greedy", &strategy));
}

}  // namespace
}  // namespace memory
}  // namespace mace
