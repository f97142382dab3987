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
  int probes = 0;     // capacities tried
};

// Starts from the best greedy plan and searches for smaller capacities
// until the lower bound is met, a capacity is proven minimal, or
// time_limit_ms passes. Always returns a valid plan.
OptimalResult OptimalOffsets(const std::vector<UsageRecord>& records, size_t alignment,
                             int64_t time_limit_ms);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_OPTIMAL_OFFSETS_H_
