// The engine's bridge to the planner library: one arena of byte offsets for
// all intermediate tensors of one memory type.
#ifndef MACE_CORE_ARENA_PLAN_H_
#define MACE_CORE_ARENA_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "mace/public/mace.h"

namespace mace {

struct ArenaRecord {
  int64_t size = 0;  // bytes, already aligned
  int first = 0;     // inclusive op indices
  int last = 0;
  int64_t fixed_offset = -1;  // >= 0: placed by an offline plan
};

// OPTIMAL's budget in the engine (MaceEngineConfig::SetMemoryPlanTimeLimitMs).
// A time limit is also a budget of search steps (memory::PlanOptions),
// kPlanStepsPerMs for each millisecond: a search the step budget stops
// gives the same plan on every machine. The rate is below the 2,000 to
// 7,000 steps per ms a loaded 2-core x86-64 host searches, so the step
// budget normally runs out first; on a slower machine, or when the greedy
// start alone takes much of the time (thousands of tensors), the clock
// stops the search, with the best plan found by then.
constexpr int64_t kDefaultPlanTimeLimitMs = 10;
constexpr int64_t kPlanStepsPerMs = 1000;

constexpr int64_t PlanStepLimit(int64_t time_limit_ms) {
  return time_limit_ms > 0 ? time_limit_ms * kPlanStepsPerMs : 1;
}

struct ArenaPlanBudget {
  int64_t time_limit_ms = kDefaultPlanTimeLimitMs;
  int64_t step_limit = PlanStepLimit(kDefaultPlanTimeLimitMs);  // 0: none
};

struct ArenaPlan {
  std::string strategy;
  std::vector<int64_t> offsets;
  int64_t total = 0;
  int64_t lower_bound = 0;
};

MaceStatus PlanArena(const std::vector<ArenaRecord>& records, MemoryStrategy strategy,
                     int64_t alignment, const ArenaPlanBudget& budget, ArenaPlan* plan);

}  // namespace mace

#endif  // MACE_CORE_ARENA_PLAN_H_
