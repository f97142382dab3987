#include "mace/core/arena_plan.h"

#include <algorithm>
#include <vector>

#include "mace/core/memory/planner.h"
#include "mace/utils/checked_math.h"
#include "mace/utils/status.h"

namespace mace {
namespace {

memory::Strategy ToPlannerStrategy(MemoryStrategy strategy) {
  // The public enum and the planner's share their values (planner.h).
  return static_cast<memory::Strategy>(static_cast<int>(strategy));
}

}  // namespace

MaceStatus PlanArena(const std::vector<ArenaRecord>& records, MemoryStrategy strategy,
                     int64_t alignment, const ArenaPlanBudget& budget, ArenaPlan* plan) {
  MACE_CHECK_ARG(alignment > 0, "arena alignment must be positive");
  // Offline-placed tensors keep their offsets; the planner places the rest
  // around them, and the two plans share one arena.
  std::vector<memory::UsageRecord> planned;
  std::vector<memory::FixedPlacement> fixed;
  std::vector<size_t> planned_index;
  for (size_t i = 0; i < records.size(); ++i) {
    const ArenaRecord& record = records[i];
    MACE_CHECK_ARG(record.size >= 0 && record.size <= kMaxByteCount && record.first <= record.last,
                   "tensor record ", i, " has size ", record.size, " and lifetime [", record.first,
                   ", ", record.last, "]");
    const memory::UsageRecord usage{static_cast<size_t>(record.size), record.first, record.last};
    if (record.fixed_offset >= 0) {
      MACE_CHECK_ARG(record.fixed_offset <= kMaxByteCount, "the model's memory plan puts tensor ",
                     i, " at offset ", record.fixed_offset, ", beyond any arena (at most ",
                     kMaxByteCount, " bytes)");
      MACE_CHECK_ARG(record.fixed_offset % alignment == 0, "the model's memory plan puts tensor ",
                     i, " at offset ", record.fixed_offset, ", which is not a multiple of the ",
                     alignment, "-byte arena alignment");
      fixed.push_back({usage, static_cast<size_t>(record.fixed_offset)});
    } else {
      planned_index.push_back(i);
      planned.push_back(usage);
    }
  }

  const memory::Status linked = memory::CheckStrategyLinked(ToPlannerStrategy(strategy));
  if (!linked.ok()) return MaceStatus(MaceStatus::MACE_UNSUPPORTED, linked.message());
  memory::PlanOptions options;
  options.alignment = static_cast<size_t>(alignment);
  options.time_limit_ms = budget.time_limit_ms;
  options.step_limit = budget.step_limit;
  memory::OffsetsPlan offsets;
  const memory::Status status =
      fixed.empty() ? memory::PlanOffsets(planned, ToPlannerStrategy(strategy), options, &offsets)
                    : memory::PlanOffsetsAround(planned, fixed, options, &offsets);
  if (!status.ok()) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS, "memory planning failed: " + status.message());
  }

  plan->strategy = fixed.empty() ? memory::StrategyName(ToPlannerStrategy(strategy))
                                 : "offline plan + greedy_by_size";
  plan->offsets.assign(records.size(), 0);
  for (size_t k = 0; k < planned_index.size(); ++k) {
    plan->offsets[planned_index[k]] = static_cast<int64_t>(offsets.assignment.offsets[k]);
  }
  size_t f = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].fixed_offset >= 0) plan->offsets[i] = static_cast<int64_t>(fixed[f++].offset);
  }
  const size_t total = offsets.assignment.total_size;
  MACE_CHECK_ARG(total <= static_cast<size_t>(kMaxByteCount), "the memory plan needs ", total,
                 " bytes, more than any arena may hold (", kMaxByteCount, ")");
  plan->total = static_cast<int64_t>(total);
  plan->lower_bound = static_cast<int64_t>(offsets.lower_bound);
  // Every tensor is bound to arena + offset after this: the plan is checked
  // here, whatever produced it, so no tensor can reach past the arena.
  for (size_t i = 0; i < records.size(); ++i) {
    MACE_CHECK_ARG(RangeFits(plan->offsets[i], records[i].size, plan->total),
                   "memory plan puts tensor record ", i, " at [", plan->offsets[i], ", +",
                   records[i].size, ") outside its ", plan->total, "-byte arena");
  }
  return MaceStatus();
}

}  // namespace mace
