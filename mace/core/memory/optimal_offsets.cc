// The capacity loop around SearchPartition. The search answers "does this
// partition fit in C bytes?"; this file picks the C values:
//  1. The incumbent is the best greedy plan (best fit, first fit, stacked
//     GREEDY_BEST objects), so the answer is never worse than greedy.
//  2. Partitions never overlap in time, so the arena is as large as the
//     largest of them, and each is only searched while it is the one
//     above the capacity being tried.
//  3. The first capacity is the lower bound itself (max live bytes). It is
//     often achievable, and when it is, optimality is proven at once; it
//     gets half of the time and of the step budget.
//  4. Then bisection between the highest capacity not yet known to be
//     feasible and the incumbent, each probe with a third of the time and
//     steps left. A found plan lowers the incumbent to its
//     actual top; a completed search proves a capacity infeasible; a probe
//     that runs out of its share counts as infeasible for the
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

// The search recurses once per placed buffer, so a partition's size bounds
// the stack depth (about 2 KB per buffer under AddressSanitizer, far less
// in optimized builds). Larger partitions keep their greedy plan.
constexpr size_t kMaxSearchBuffers = 2000;
// Stacked GREEDY_BEST objects cost O(n^2) time; above this many records
// they would eat the time limit before the search starts.
constexpr size_t kMaxStackedIncumbent = 2000;

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
  std::vector<OffsetsAssignment> others = {FirstFitBySizeOffsets(records, alignment)};
  if (records.size() <= kMaxStackedIncumbent) {
    others.push_back(StackObjects(GreedyBestAssignment(records), alignment));
  }
  for (const OffsetsAssignment& other : others) {
    if (AlignedTop(records, other, alignment) < AlignedTop(records, best, alignment)) {
      best = other;
    }
  }
  return best;
}

// The greedy plan per partition: offsets and the height they reach.
struct PartitionPlan {
  int64_t height = 0;
  int64_t lower_bound = 0;  // max live bytes inside the partition
};

int64_t Height(const SearchProblem& problem, const Partition& partition,
               const std::vector<int64_t>& offsets) {
  int64_t height = 0;
  for (int b : partition.buffers) height = std::max(height, offsets[b] + problem.sizes[b]);
  return height;
}

}  // namespace

OptimalResult OptimalOffsets(const std::vector<UsageRecord>& records, size_t alignment,
                             int64_t time_limit_ms, int64_t step_limit) {
  const SearchClock::time_point start = SearchClock::now();
  const SearchClock::time_point deadline =
      start + std::chrono::milliseconds(std::max<int64_t>(0, time_limit_ms));
  std::vector<size_t> record_of;
  const SearchProblem problem = BuildSearchProblem(records, alignment, &record_of);

  // Buffer offsets, starting from the greedy plan (zero-size records are
  // not buffers and stay at 0).
  const OffsetsAssignment greedy = BestGreedy(records, alignment);
  std::vector<int64_t> offsets(record_of.size());
  for (size_t b = 0; b < record_of.size(); ++b) {
    offsets[b] = static_cast<int64_t>(greedy.offsets[record_of[b]]);
  }
  std::vector<PartitionPlan> plans(problem.partitions.size());
  for (size_t k = 0; k < plans.size(); ++k) {
    const Partition& partition = problem.partitions[k];
    plans[k].height = Height(problem, partition, offsets);
    for (int s = partition.lo; s < partition.hi; ++s) {
      int64_t live = 0;
      for (int b : problem.sections[s]) live += problem.sizes[b];
      plans[k].lower_bound = std::max(plans[k].lower_bound, live);
    }
  }
  auto top = [&plans]() {
    int64_t height = 0;
    for (const PartitionPlan& plan : plans) height = std::max(height, plan.height);
    return height;
  };

  OptimalResult result;
  // Partitions too large to search keep their greedy height, which the
  // arena cannot go below.
  int64_t fixed = 0;
  for (size_t k = 0; k < plans.size(); ++k) {
    if (problem.partitions[k].buffers.size() > kMaxSearchBuffers) {
      fixed = std::max(fixed, plans[k].height);
    }
  }
  int64_t proven_low = problem.max_live;  // every capacity below is infeasible
  auto reachable = [&]() { return std::max(proven_low, fixed); };
  int64_t low = reachable();  // bisection's working bound
  const int64_t max_steps = step_limit > 0 ? step_limit : kNoStepLimit;
  while (reachable() < top()) {
    const SearchClock::time_point now = SearchClock::now();
    if (now >= deadline || result.steps >= max_steps) break;
    const int64_t high = top();
    if (low >= high) low = reachable();  // retry the unknown range with what is left
    const bool first = result.probes == 0;
    const int64_t capacity = first ? low : low + (high - low) / 2;
    // Both budgets are shared out the same way: half of what is left for
    // the first probe, a third for each later one.
    const int share = first ? 2 : 3;
    const SearchClock::time_point probe_deadline = now + (deadline - now) / share;
    const int64_t probe_end =
        result.steps + std::max<int64_t>(1, (max_steps - result.steps) / share);
    ++result.probes;
    bool feasible = true;
    bool proven = true;
    for (size_t k = 0; k < plans.size() && feasible; ++k) {
      if (plans[k].height <= capacity) continue;
      if (plans[k].lower_bound > capacity) {
        feasible = false;
        break;
      }

      std::vector<int64_t> found = offsets;
      SearchStats stats;
      const SearchBudget budget{probe_deadline, probe_end - result.steps};
      const SearchOutcome outcome =
          SearchPartition(problem, problem.partitions[k], capacity, budget, &found, &stats);
      result.nodes += stats.nodes;
      result.steps += stats.steps;
      if (outcome == SearchOutcome::kFound) {
        for (int b : problem.partitions[k].buffers) offsets[b] = found[b];
        plans[k].height = Height(problem, problem.partitions[k], offsets);
      } else {
        feasible = false;
        proven = outcome == SearchOutcome::kInfeasible;
        // A probe that ran out has spent its share, give or take a node;
        // counting all of it makes the shares shrink to nothing, so the
        // step budget ends the loop as surely as the clock does.
        if (!proven) result.steps = std::max(result.steps, probe_end);
      }
    }
    if (!feasible) {
      if (proven) proven_low = std::max(proven_low, capacity + 1);
      low = std::max(low, capacity + 1);
    }
  }

  result.assignment.offsets.assign(records.size(), 0);
  for (size_t b = 0; b < record_of.size(); ++b) {
    result.assignment.offsets[record_of[b]] = static_cast<size_t>(offsets[b]);
  }
  for (size_t i = 0; i < records.size(); ++i) {
    result.assignment.total_size =
        std::max(result.assignment.total_size, result.assignment.offsets[i] + records[i].size);
  }
  bool aligned_sizes = true;
  for (const UsageRecord& record : records) aligned_sizes &= record.size % alignment == 0;
  result.proven =
      proven_low >= top() &&
      (aligned_sizes || result.assignment.total_size == OffsetsLowerBound(records, alignment));
  return result;
}

}  // namespace memory
}  // namespace mace
