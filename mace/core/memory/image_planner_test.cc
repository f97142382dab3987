// Hand-worked plans for 2D images: an image holds a tensor only if it
// covers it in both dimensions, and images never grow.
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/memory/plan_checks.h"
#include "mace/core/memory/planner.h"

namespace mace {
namespace memory {
namespace {

using Ids = std::vector<size_t>;
using Sizes = std::vector<ImageSize>;

ImageObjectsPlan Plan(const std::vector<ImageUsageRecord>& records, Strategy strategy) {
  ImageObjectsPlan plan;
  const Status status = PlanImageObjects(records, strategy, &plan);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(CheckImageObjectsAssignment(records, plan.assignment).ok());
  return plan;
}

void ExpectPlan(const std::vector<ImageUsageRecord>& records, Strategy strategy, const Ids& ids,
                const Sizes& sizes) {
  const ImageObjectsPlan plan = Plan(records, strategy);
  EXPECT_EQ(plan.assignment.object_ids, ids) << StrategyName(strategy);
  EXPECT_EQ(plan.assignment.object_sizes, sizes) << StrategyName(strategy);
}

TEST(ImagePlannerTest, Naive) {
  ExpectPlan({{{4, 4}, 0, 0}, {{2, 8}, 1, 1}}, Strategy::kNaive, {0, 1}, {{4, 4}, {2, 8}});
}

TEST(ImagePlannerTest, EqualityNeedsTheExactExtent) {
  // {4, 4} is reused; the free {4, 2} does not match {2, 4}.
  ExpectPlan({{{4, 4}, 0, 0}, {{4, 2}, 0, 0}, {{4, 4}, 1, 1}, {{2, 4}, 1, 1}}, Strategy::kEquality,
             {0, 1, 0, 2}, {{4, 4}, {4, 2}, {2, 4}});
}

TEST(ImagePlannerTest, GreedyInOrderNeverGrows) {
  // {2, 2} fits both free images with the same area difference (12) and
  // takes the first released, object 0. {4, 8} is covered by neither {4, 4}
  // nor {2, 8}, so it gets a new image instead of growing one.
  const std::vector<ImageUsageRecord> records = {
      {{4, 4}, 0, 0}, {{2, 8}, 0, 0}, {{2, 2}, 1, 1}, {{4, 8}, 2, 2}};
  ExpectPlan(records, Strategy::kGreedyInOrder, {0, 1, 0, 2}, {{4, 4}, {2, 8}, {4, 8}});
  const ImageObjectsPlan plan = Plan(records, Strategy::kGreedyInOrder);
  EXPECT_EQ(plan.total, 64u);
  // Area positional maxima: {32, 16}.
  EXPECT_EQ(plan.lower_bound, 48u);
  EXPECT_EQ(plan.optimal, std::nullopt);
}

TEST(ImagePlannerTest, GreedyInOrderSmallestAreaDifference) {
  ExpectPlan({{{8, 8}, 0, 0}, {{4, 4}, 0, 0}, {{3, 3}, 1, 1}}, Strategy::kGreedyInOrder, {0, 1, 1},
             {{8, 8}, {4, 4}});
}

TEST(ImagePlannerTest, GreedyInOrderTiesGoToTheFirstReleased) {
  // Object 1 ends at task 0 and is released before object 0 (task 1).
  ExpectPlan({{{4, 4}, 0, 1}, {{2, 8}, 0, 0}, {{2, 2}, 2, 2}}, Strategy::kGreedyInOrder, {0, 1, 1},
             {{4, 4}, {2, 8}});
}

TEST(ImagePlannerTest, RejectsStrategiesThatGrowObjects) {
  ImageObjectsPlan plan;
  for (Strategy strategy : {Strategy::kGreedyByBreadth, Strategy::kGreedyBySize,
                            Strategy::kGreedyBest, Strategy::kMinCostFlow, Strategy::kOptimal}) {
    EXPECT_FALSE(PlanImageObjects({{{1, 1}, 0, 0}}, strategy, &plan).ok());
  }
  EXPECT_FALSE(PlanImageObjects({{{1, 1}, 2, 1}}, Strategy::kNaive, &plan).ok());
  EXPECT_FALSE(PlanImageObjects({{{kMaxImageExtent + 1, 1}, 0, 0}}, Strategy::kNaive, &plan).ok());
}

}  // namespace
}  // namespace memory
}  // namespace mace
