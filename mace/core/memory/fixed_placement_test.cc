// Plans around tensors whose offsets an offline plan already fixed.
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/memory/plan_checks.h"
#include "mace/core/memory/planner.h"

namespace mace {
namespace memory {
namespace {

TEST(PlanOffsetsAroundTest, FillsTheGapsAroundFixedTensors) {
  // Fixed: a 16-byte tensor at 32, live over tasks 0..3. The free tensors
  // are all live at task 1: the 32-byte one fits exactly below the fixed
  // tensor, the 8-byte one goes on top (48), and the 4-byte one, live only
  // later, reuses offset 0 once the 32-byte tensor is gone.
  const std::vector<FixedPlacement> fixed = {{{16, 0, 3}, 32}};
  const std::vector<UsageRecord> records = {{32, 1, 2}, {8, 0, 1}, {4, 3, 3}};
  OffsetsPlan plan;
  const Status status = PlanOffsetsAround(records, fixed, PlanOptions(), &plan);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(plan.assignment.offsets, (std::vector<size_t>{0, 48, 0}));
  EXPECT_EQ(plan.assignment.total_size, 56u);
  // Max live bytes: task 1 holds 16 + 32 + 8.
  EXPECT_EQ(plan.lower_bound, 56u);

  std::vector<UsageRecord> all = {fixed[0].record};
  all.insert(all.end(), records.begin(), records.end());
  OffsetsAssignment combined;
  combined.offsets = {32, 0, 48, 0};
  combined.total_size = 56;
  EXPECT_TRUE(CheckOffsetsAssignment(all, combined, 1).ok());
}

TEST(PlanOffsetsAroundTest, RandomPlansStayValid) {
  // Fixed tensors stacked without reuse are always a valid preset; the free
  // ones must never collide with them. Seed printed on failure.
  const uint32_t seed = 20261122;
  std::mt19937 rng(seed);
  for (int round = 0; round < 50; ++round) {
    std::vector<FixedPlacement> fixed;
    std::vector<UsageRecord> records;
    size_t top = 0;
    for (int i = 0; i < 30; ++i) {
      const TaskId first = rng() % 40;
      const UsageRecord record{1 + rng() % 500, first, first + static_cast<TaskId>(rng() % 8)};
      if (rng() % 4 == 0) {
        fixed.push_back({record, top});
        top += (record.size + 63) / 64 * 64;
      } else {
        records.push_back(record);
      }
    }
    PlanOptions options;
    options.alignment = 64;
    OffsetsPlan plan;
    ASSERT_TRUE(PlanOffsetsAround(records, fixed, options, &plan).ok()) << "seed " << seed;
    std::vector<UsageRecord> all;
    OffsetsAssignment combined;
    for (const FixedPlacement& placement : fixed) {
      all.push_back(placement.record);
      combined.offsets.push_back(placement.offset);
    }
    all.insert(all.end(), records.begin(), records.end());
    combined.offsets.insert(combined.offsets.end(), plan.assignment.offsets.begin(),
                            plan.assignment.offsets.end());
    combined.total_size = plan.assignment.total_size;
    const Status check = CheckOffsetsAssignment(all, combined, 64);
    EXPECT_TRUE(check.ok()) << "seed " << seed << " round " << round << ": " << check.message();
    EXPECT_GE(plan.assignment.total_size, plan.lower_bound);
  }
}

TEST(PlanOffsetsAroundTest, RejectsCollidingOrMisalignedFixedTensors) {
  OffsetsPlan plan;
  // Both live at task 1 and both at offset 0.
  const std::vector<FixedPlacement> colliding = {{{8, 0, 1}, 0}, {{8, 1, 2}, 0}};
  const Status status = PlanOffsetsAround({}, colliding, PlanOptions(), &plan);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("fixed placements"), std::string::npos) << status.message();

  PlanOptions aligned;
  aligned.alignment = 64;
  EXPECT_FALSE(PlanOffsetsAround({{8, 0, 0}}, {{{8, 0, 0}, 32}}, aligned, &plan).ok());
}

// An offline offset near 2^63 (a multiple of every alignment) once made
// offset + size wrap, so the arena came out tiny while the tensor pointed
// far outside it.
TEST(PlanOffsetsAroundTest, RejectsOffsetsThatWouldWrapTheArenaSize) {
  OffsetsPlan plan;
  PlanOptions aligned;
  aligned.alignment = 64;
  const size_t huge = std::numeric_limits<size_t>::max() / 2 + 1 - 64;  // 2^63 - 64 on 64-bit
  const Status status = PlanOffsetsAround({{64, 0, 1}}, {{{4096, 0, 1}, huge}}, aligned, &plan);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("exceeds"), std::string::npos) << status.message();
  EXPECT_FALSE(PlanOffsetsAround({}, {{{64, 0, 0}, kMaxTensorSize + 64}}, aligned, &plan).ok());
  // The largest accepted offset still gives a total that covers the tensor.
  const size_t top = kMaxTensorSize / 64 * 64;
  ASSERT_TRUE(PlanOffsetsAround({}, {{{64, 0, 0}, top}}, aligned, &plan).ok());
  EXPECT_EQ(plan.assignment.total_size, top + 64);
}

}  // namespace
}  // namespace memory
}  // namespace mace
