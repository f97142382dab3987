// A compressed time axis. Op indices can be sparse and huge (MiniMalloc's
// instances use values up to 2^20), but the set of live tensors only changes
// where some lifetime starts or ends. Every planner that reasons about "all
// tensors live at a task" works on these segments instead of raw tasks.
#ifndef MACE_CORE_MEMORY_TIME_LINE_H_
#define MACE_CORE_MEMORY_TIME_LINE_H_

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

struct TimeLine {
  // Segment k covers tasks [starts[k], starts[k + 1]); the last entry is only
  // an end point, so there are starts.size() - 1 segments.
  std::vector<TaskId> starts;
  // Record i is live in segments [begin[i], end[i]).
  std::vector<int> begin;
  std::vector<int> end;
  // live[k]: records live in segment k, in index order.
  std::vector<std::vector<size_t>> live;

  int num_segments() const { return static_cast<int>(live.size()); }
};

// `first`/`last` are inclusive task ranges, one per record.
TimeLine BuildTimeLine(const std::vector<TaskId>& first, const std::vector<TaskId>& last);

template <typename Record>
TimeLine BuildTimeLineFor(const std::vector<Record>& records) {
  std::vector<TaskId> first, last;
  first.reserve(records.size());
  last.reserve(records.size());
  for (const Record& record : records) {
    first.push_back(record.first);
    last.push_back(record.last);
  }
  return BuildTimeLine(first, last);
}

// pm[k] is the largest k-th largest value live in any segment; values[i]
// belongs to record i. Sum of pm is the shared-objects lower bound, and
// GREEDY_BY_SIZE uses pm to rank tensors.
std::vector<size_t> PositionalMaxima(const TimeLine& time_line, const std::vector<size_t>& values);

// Indices of records sorted by `first`, ties in index order. The in-order
// strategies walk records this way; for already sorted input it is identity.
template <typename Record>
std::vector<size_t> OrderByFirstTask(const std::vector<Record>& records) {
  std::vector<size_t> order(records.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&records](size_t a, size_t b) { return records[a].first < records[b].first; });
  return order;
}

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_TIME_LINE_H_
