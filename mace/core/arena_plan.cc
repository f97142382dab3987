#include "mace/core/arena_plan.h"

#include <algorithm>

#include "mace/utils/status.h"

namespace mace {

MaceStatus PlanArena(const std::vector<ArenaRecord>& records, MemoryStrategy /*strategy*/,
                     int64_t alignment, int64_t /*time_limit_ms*/, ArenaPlan* plan) {
  MACE_CHECK_ARG(alignment > 0, "arena alignment must be positive");
  plan->strategy = "NAIVE";
  plan->offsets.assign(records.size(), 0);
  int last_op = 0;
  int64_t end = 0;
  for (const ArenaRecord& record : records) {
    last_op = std::max(last_op, record.last);
    if (record.fixed_offset >= 0) end = std::max(end, record.fixed_offset + record.size);
  }
  end = (end + alignment - 1) / alignment * alignment;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].fixed_offset >= 0) {
      plan->offsets[i] = records[i].fixed_offset;
    } else {
      plan->offsets[i] = end;
      end += (records[i].size + alignment - 1) / alignment * alignment;
    }
  }
  plan->total = end;
  std::vector<int64_t> live(last_op + 1, 0);
  for (const ArenaRecord& record : records) {
    for (int t = record.first; t <= record.last; ++t) live[t] += record.size;
  }
  plan->lower_bound = live.empty() ? 0 : *std::max_element(live.begin(), live.end());
  return MaceStatus();
}

}  // namespace mace
