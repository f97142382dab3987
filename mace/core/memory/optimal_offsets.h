// OPTIMAL: the smallest arena the exact search can find within a time limit.
#ifndef MACE_CORE_MEMORY_OPTIMAL_OFFSETS_H_
#define MACE_CORE_MEMORY_OPTIMAL_OFFSETS_H_

#include <cstdint>
#include <vector>

#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

struct OptimalResult {
  OffsetsAssignment assignment;
  // The arena cannot be smaller (in aligned bytes, see optimal_offsets.cc).
  bool proven = false;
  int64_t nodes = 0;  // search nodes over all probes
  // Their cost (SearchBudget) over all probes; a probe that ran out of
  // budget counts as spending all of its share.
  int64_t steps = 0;
  int probes = 0;     // capacities tried
};

// Starts from the best greedy plan and searches for smaller capacities
// until the lower bound is met, a capacity is proven minimal, time_limit_ms
// passes, or step_limit search steps are spent (0: no step limit). Always
// returns a valid plan; one stopped by the step limit is the same on every
// machine.
OptimalResult OptimalOffsets(const std::vector<UsageRecord>& records, size_t alignment,
                             int64_t time_limit_ms, int64_t step_limit);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_OPTIMAL_OFFSETS_H_
