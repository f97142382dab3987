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

struct ArenaPlan {
  std::string strategy;
  std::vector<int64_t> offsets;
  int64_t total = 0;
  int64_t lower_bound = 0;
};

MaceStatus PlanArena(const std::vector<ArenaRecord>& records, MemoryStrategy strategy,
                     int64_t alignment, int64_t time_limit_ms, ArenaPlan* plan);

}  // namespace mace

#endif  // MACE_CORE_ARENA_PLAN_H_
