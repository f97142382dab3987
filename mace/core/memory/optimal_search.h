// Decides whether one partition of a SearchProblem fits in `capacity`
// bytes, by depth-first branch and bound over canonical solutions, after
// MiniMalloc (Moffitt, ASPLOS 2023):
//  - Canonical: each buffer sits at its minimum offset, i.e. 0 or the top of
//    an already placed buffer that overlaps it in time, and buffers are
//    placed in non-decreasing (offset, rank) order. Every packing can be
//    pushed down into such a form, so nothing feasible is lost, and the
//    order removes permutations of the same packing.
//  - Dominance: a buffer is never placed at or above the lowest top any
//    other unplaced buffer could reach; that buffer would fit underneath.
//  - Section inference: in every section, the lowest offset any unplaced
//    buffer there can still take (raised to the current offset, since
//    offsets only grow) plus their total size must fit in the capacity.
//  - Decomposition: once no unplaced buffer crosses a section boundary, the
//    two sides are solved separately, and a side proven infeasible is
//    remembered, so the same side state is never searched twice.
//  - Restarts: several orderings take turns under a growing node limit, so
//    one bad ordering cannot eat the whole budget.
#ifndef MACE_CORE_MEMORY_OPTIMAL_SEARCH_H_
#define MACE_CORE_MEMORY_OPTIMAL_SEARCH_H_

#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>

#include "mace/core/memory/search_problem.h"

namespace mace {
namespace memory {

enum class SearchOutcome {
  kFound,       // offsets filled in, every top <= capacity
  kInfeasible,  // proven: nothing fits in capacity
  kTimeout,     // the budget ran out first
};

struct SearchStats {
  int64_t nodes = 0;
  int64_t steps = 0;
  int restarts = 0;
};

using SearchClock = std::chrono::steady_clock;

constexpr int64_t kNoStepLimit = std::numeric_limits<int64_t>::max();

// A search stops (kTimeout) at the deadline or after max_steps steps,
// whichever comes first. A node costs one step per buffer of the part it
// works on, since it scans them all, so steps track the work done whatever
// the graph's size; unlike the clock, they stop every run at the same point.
struct SearchBudget {
  SearchClock::time_point deadline;
  int64_t max_steps = kNoStepLimit;
};

// Fills (*offsets)[b] for the partition's buffers b on kFound; other
// entries are left alone.
SearchOutcome SearchPartition(const SearchProblem& problem, const Partition& partition,
                              int64_t capacity, const SearchBudget& budget,
                              std::vector<int64_t>* offsets, SearchStats* stats);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_OPTIMAL_SEARCH_H_
