// The capacity loop around SearchAtCapacity. The search answers "does it
// fit in C bytes?"; this file picks the C values:
//  1. The incumbent is the best greedy plan (best fit, first fit, stacked
//     GREEDY_BEST objects), so the answer is never worse than greedy.
//  2. The first probe is the lower bound itself (max live bytes). It is
//     often achievable, and when it is, optimality is proven at once.
//  3. Then bisection between the highest capacity not yet known to be
//     feasible and the incumbent. A found plan lowers the incumbent to its
//     actual top; a completed search proves a capacity infeasible; a probe
//     that runs out of its time slice is treated as infeasible for the
//     bisection only, never for the optimality claim.
//
// The search packs sizes rounded up to the alignment. That is exact for the
// aligned arena size; the reported total (max offset + raw size) can save up
// to alignment - 1 bytes on the topmost tensor, so with alignment > 1 the
// plan is only claimed optimal if all sizes are aligned or the total meets
// the lower bound.
#include "mace/core/memory/optimal_offsets.h"

#include <algorithm>
#include <chrono>

#include "mace/core/memory/lower_bounds.h"
#include "mace/core/memory/optimal_search.h"
#include "mace/core/memory/planner.h"
#include "mace/core/memory/search_problem.h"
#include "mace/core/memory/strategies.h"

namespace mace {
namespace memory {
namespace {

size_t AlignedTop(const std::vector<UsageRecord>& records, const OffsetsAssignment& assignment,
                  size_t alignment) {
  size_t top = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].size == 0) continue;
    top = std::max(top, assignment.offsets[i] + AlignUp(records[i].size, alignment));
  }
  return top;
}

OffsetsAssignment BestGreedy(const std::vector<UsageRecord>& records, size_t alignment) {
  OffsetsAssignment best = GreedyBySizeOffsets(records, alignment);
  const OffsetsAssignment others[] = {
      FirstFitBySizeOffsets(records, alignment),
      StackObjects(GreedyBestAssignment(records), alignment),
  };
  for (const OffsetsAssignment& other : others) {
    if (AlignedTop(records, other, alignment) < AlignedTop(records, best, alignment)) {
      best = other;
    }
  }
  return best;
}

void SetTotal(const std::vector<UsageRecord>& records, OffsetsAssignment* assignment) {
  assignment->total_size = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    assignment->total_size =
        std::max(assignment->total_size, assignment->offsets[i] + records[i].size);
  }
}

}  // namespace

OptimalResult OptimalOffsets(const std::vector<UsageRecord>& records, size_t alignment,
                             int64_t time_limit_ms) {
  const SearchClock::time_point start = SearchClock::now();
  const SearchClock::time_point deadline =
      start + std::chrono::milliseconds(std::max<int64_t>(0, time_limit_ms));
  OptimalResult result;
  result.assignment = BestGreedy(records, alignment);
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].size == 0) result.assignment.offsets[i] = 0;
  }

  std::vector<size_t> record_of;
  const SearchProblem problem = BuildSearchProblem(records, alignment, &record_of);
  int64_t proven_low = problem.max_live;  // every capacity below is infeasible
  int64_t low = proven_low;               // bisection's working bound
  int64_t high = static_cast<int64_t>(AlignedTop(records, result.assignment, alignment));

  while (proven_low < high) {
    const SearchClock::time_point now = SearchClock::now();
    if (now >= deadline) break;
    if (low >= high) low = proven_low;  // retry the unknown range with what is left
    const bool first = result.probes == 0;
    const int64_t capacity = first ? low : low + (high - low) / 2;
    const auto slice = (deadline - now) / (first ? 3 : 4);
    std::vector<int64_t> offsets;
    SearchStats stats;
    const SearchOutcome outcome =
        SearchAtCapacity(problem, capacity, now + slice, &offsets, &stats);
    result.nodes += stats.nodes;
    ++result.probes;
    if (outcome == SearchOutcome::kFound) {
      int64_t top = 0;
      for (size_t b = 0; b < offsets.size(); ++b) {
        result.assignment.offsets[record_of[b]] = static_cast<size_t>(offsets[b]);
        top = std::max(top, offsets[b] + problem.sizes[b]);
      }
      high = top;
    } else {
      if (outcome == SearchOutcome::kInfeasible) proven_low = std::max(proven_low, capacity + 1);
      low = std::max(low, capacity + 1);
    }
  }
  SetTotal(records, &result.assignment);

  bool aligned_sizes = true;
  for (const UsageRecord& record : records) aligned_sizes &= record.size % alignment == 0;
  result.proven = proven_low >= high &&
                  (aligned_sizes ||
                   result.assignment.total_size == OffsetsLowerBound(records, alignment));
  return result;
}

}  // namespace memory
}  // namespace mace
