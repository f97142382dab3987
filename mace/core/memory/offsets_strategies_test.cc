// Hand-worked single-arena plans: GREEDY_BY_SIZE best fit, its first-fit
// variant, stacked objects, alignment and the max-live lower bound.
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/memory/lower_bounds.h"
#include "mace/core/memory/plan_checks.h"
#include "mace/core/memory/planner.h"
#include "mace/core/memory/strategies.h"

namespace mace {
namespace memory {
namespace {

using Offsets = std::vector<size_t>;

OffsetsPlan Plan(const std::vector<UsageRecord>& records, Strategy strategy, size_t alignment = 1) {
  PlanOptions options;
  options.alignment = alignment;
  OffsetsPlan plan;
  const Status status = PlanOffsets(records, strategy, options, &plan);
  EXPECT_TRUE(status.ok()) << status.message();
  const Status check = CheckOffsetsAssignment(records, plan.assignment, alignment);
  EXPECT_TRUE(check.ok()) << check.message();
  return plan;
}

TEST(GreedyBySizeOffsetsTest, UsesTheLeadingGap) {
  // 10 goes to 0, 8 overlaps it and goes to 10. The 6-byte tensor only
  // overlaps the 8 at offset 10, so the gap [0, 10) below it holds it.
  // Skipping that gap would put it at 18 and need 24 bytes.
  const OffsetsPlan plan = Plan({{10, 0, 1}, {8, 1, 2}, {6, 2, 3}}, Strategy::kGreedyBySize);
  EXPECT_EQ(plan.assignment.offsets, (Offsets{0, 10, 0}));
  EXPECT_EQ(plan.assignment.total_size, 18u);
  EXPECT_EQ(plan.lower_bound, 18u);
  EXPECT_EQ(plan.optimal, std::optional<bool>(true));
}

// Placed by size: 15 at 0, 6 at 0 (no overlap), 5 at 6 (above the 6), the
// other 5 at 15 (above the 15). The last tensor (4 bytes) overlaps only the
// two 5s, at [6, 11) and [15, 20): gaps [0, 6) and [11, 15).
const std::vector<UsageRecord> kTwoGaps = {
    {15, 3, 4}, {6, 0, 1}, {5, 1, 2}, {5, 2, 3}, {4, 2, 2},
};

TEST(GreedyBySizeOffsetsTest, TakesTheSmallestFittingGap) {
  const OffsetsPlan plan = Plan(kTwoGaps, Strategy::kGreedyBySize);
  EXPECT_EQ(plan.assignment.offsets, (Offsets{0, 0, 6, 15, 11}));
  EXPECT_EQ(plan.assignment.total_size, 20u);
  EXPECT_EQ(plan.lower_bound, 20u);
}

TEST(FirstFitBySizeOffsetsTest, TakesTheLowestFittingGap) {
  const OffsetsAssignment assignment = FirstFitBySizeOffsets(kTwoGaps, 1);
  EXPECT_EQ(assignment.offsets, (Offsets{0, 0, 6, 15, 0}));
  EXPECT_EQ(assignment.total_size, 20u);
}

TEST(GreedyBySizeOffsetsTest, PlacesOnTopWhenNoGapFits) {
  const OffsetsPlan plan = Plan({{4, 0, 2}, {8, 1, 1}, {2, 0, 0}}, Strategy::kGreedyBySize);
  // 8 at 0; 4 overlaps it and goes on top (8); 2 overlaps only the 4 and
  // fits in [0, 8).
  EXPECT_EQ(plan.assignment.offsets, (Offsets{8, 0, 0}));
  EXPECT_EQ(plan.assignment.total_size, 12u);
}

TEST(GreedyBySizeOffsetsTest, AlignsOffsetsButNotSizes) {
  // Alignment 8: 6 at 0, 5 at 0 (no overlap), 3 overlaps both and starts at
  // the aligned end of the higher one, 8. The arena ends at 8 + 3.
  const OffsetsPlan plan = Plan({{5, 0, 1}, {3, 1, 2}, {6, 2, 2}}, Strategy::kGreedyBySize, 8);
  EXPECT_EQ(plan.assignment.offsets, (Offsets{0, 8, 0}));
  EXPECT_EQ(plan.assignment.total_size, 11u);
  // At task 1: 5 and 3 stack as 8 + 3 at best.
  EXPECT_EQ(plan.lower_bound, 11u);
}

TEST(StackObjectsTest, ObjectsFollowEachOther) {
  ObjectsAssignment objects;
  objects.object_ids = {0, 1, 0, 2};
  objects.object_sizes = {10, 3, 7};
  const OffsetsAssignment unaligned = StackObjects(objects, 1);
  EXPECT_EQ(unaligned.offsets, (Offsets{0, 10, 0, 13}));
  EXPECT_EQ(unaligned.total_size, 20u);
  const OffsetsAssignment aligned = StackObjects(objects, 4);
  EXPECT_EQ(aligned.offsets, (Offsets{0, 12, 0, 16}));
  EXPECT_EQ(aligned.total_size, 23u);
}

TEST(PlanOffsetsTest, ObjectStrategiesAreStacked) {
  const std::vector<UsageRecord> chain = {
      {16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5},
  };
  // GREEDY_IN_ORDER objects {64, 32}; tensors 0, 2, 4 in object 0.
  const OffsetsPlan plan = Plan(chain, Strategy::kGreedyInOrder);
  EXPECT_EQ(plan.assignment.offsets, (Offsets{0, 64, 0, 64, 0}));
  EXPECT_EQ(plan.assignment.total_size, 96u);
  EXPECT_EQ(plan.lower_bound, 96u);
  EXPECT_EQ(Plan(chain, Strategy::kNaive).assignment.total_size, 128u);
}

TEST(PlanOffsetsTest, GreedyBestIsNoWorseThanEachCandidate) {
  const OffsetsPlan best = Plan(kTwoGaps, Strategy::kGreedyBest);
  EXPECT_LE(best.assignment.total_size,
            Plan(kTwoGaps, Strategy::kGreedyBySize).assignment.total_size);
  EXPECT_LE(best.assignment.total_size, FirstFitBySizeOffsets(kTwoGaps, 1).total_size);
}

TEST(LowerBoundTest, MaxLiveBytes) {
  // Task 1: 10 + 8; task 2: 8 + 6.
  EXPECT_EQ(OffsetsLowerBound({{10, 0, 1}, {8, 1, 2}, {6, 2, 3}}, 1), 18u);
  // Sparse, huge task ids are fine.
  EXPECT_EQ(OffsetsLowerBound({{10, 0, 1000000000}, {8, 999999999, 999999999}}, 1), 18u);
  EXPECT_EQ(OffsetsLowerBound({}, 1), 0u);
  // Alignment 8: 6 at 0 and 10 at 8 is the best two tensors live together
  // can do.
  EXPECT_EQ(OffsetsLowerBound({{10, 0, 0}, {6, 0, 0}}, 8), 18u);
}

TEST(PlanOffsetsTest, RejectsBadOptions) {
  OffsetsPlan plan;
  PlanOptions options;
  options.alignment = 0;
  EXPECT_FALSE(PlanOffsets({{8, 0, 0}}, Strategy::kGreedyBySize, options, &plan).ok());
  options.alignment = kMaxAlignment + 1;
  EXPECT_FALSE(PlanOffsets({{8, 0, 0}}, Strategy::kGreedyBySize, options, &plan).ok());
  options.alignment = 1;
  options.time_limit_ms = -1;
  EXPECT_FALSE(PlanOffsets({{8, 0, 0}}, Strategy::kOptimal, options, &plan).ok());
  options.time_limit_ms = 10;
  EXPECT_FALSE(PlanOffsets({{8, 2, 1}}, Strategy::kGreedyBySize, options, &plan).ok());
}

TEST(PlanChecksTest, CatchesBrokenPlans) {
  const std::vector<UsageRecord> records = {{8, 0, 1}, {8, 1, 2}};
  OffsetsAssignment offsets;
  offsets.offsets = {0, 4};
  offsets.total_size = 12;
  EXPECT_FALSE(CheckOffsetsAssignment(records, offsets, 1).ok());  // overlap at task 1
  offsets.offsets = {0, 8};
  offsets.total_size = 16;
  EXPECT_TRUE(CheckOffsetsAssignment(records, offsets, 1).ok());
  EXPECT_FALSE(CheckOffsetsAssignment(records, offsets, 16).ok());  // 8 is not aligned
  offsets.total_size = 15;
  EXPECT_FALSE(CheckOffsetsAssignment(records, offsets, 1).ok());  // past the arena

  ObjectsAssignment objects;
  objects.object_ids = {0, 0};
  objects.object_sizes = {8};
  EXPECT_FALSE(CheckObjectsAssignment(records, objects).ok());  // shared while live
  objects.object_ids = {0, 1};
  objects.object_sizes = {8, 4};
  EXPECT_FALSE(CheckObjectsAssignment(records, objects).ok());  // object too small
  objects.object_ids = {0, 2};
  EXPECT_FALSE(CheckObjectsAssignment(records, objects).ok());  // no such object
}

}  // namespace
}  // namespace memory
}  // namespace mace
