// GREEDY_BY_BREADTH: the tasks with the most live bytes constrain the plan
// most, so their tensors pick objects first.
#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <vector>

#include "mace/core/memory/strategies.h"
#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {
namespace {

// The lifetimes already assigned to one object, keyed by first task. They are
// pairwise disjoint, so a new lifetime fits iff it misses both neighbours.
using Schedule = std::map<TaskId, TaskId>;

bool FitsSchedule(const Schedule& schedule, const UsageRecord& record) {
  auto next = schedule.lower_bound(record.first);
  if (next != schedule.end() && next->first <= record.last) return false;
  if (next != schedule.begin() && std::prev(next)->second >= record.first) return false;
  return true;
}

// True if an object of `candidate` bytes is no better than the current best
// for a tensor of `size` bytes: prefer the smallest object that fits, else
// the largest one that does not.
bool NoBetter(size_t candidate, size_t best, size_t size) {
  if (best < size) return candidate <= best;
  return candidate < size || candidate >= best;
}

}  // namespace

ObjectsAssignment GreedyByBreadthAssignment(const std::vector<UsageRecord>& records) {
  const TimeLine time_line = BuildTimeLineFor(records);
  const int num_segments = time_line.num_segments();
  // A segment stands for the run of tasks it covers; repeated tasks with the
  // same live set would only revisit tensors already assigned.
  std::vector<size_t> breadth(num_segments, 0);
  for (int k = 0; k < num_segments; ++k) {
    for (size_t i : time_line.live[k]) breadth[k] += records[i].size;
  }
  std::vector<int> task_order(num_segments);
  std::iota(task_order.begin(), task_order.end(), 0);
  std::stable_sort(task_order.begin(), task_order.end(),
                   [&breadth](int a, int b) { return breadth[a] > breadth[b]; });

  ObjectsAssignment assignment;
  assignment.object_ids.assign(records.size(), kNotAssigned);
  std::vector<Schedule> schedules;
  std::vector<size_t> tensors;
  for (int task : task_order) {
    tensors = time_line.live[task];
    std::stable_sort(tensors.begin(), tensors.end(),
                     [&records](size_t a, size_t b) { return records[a].size > records[b].size; });
    for (size_t i : tensors) {
      if (assignment.object_ids[i] != kNotAssigned) continue;
      const UsageRecord& record = records[i];
      const size_t num_objects = schedules.size();
      size_t best = num_objects;
      for (size_t object = 0; object < num_objects; ++object) {
        if (best != num_objects &&
            NoBetter(assignment.object_sizes[object], assignment.object_sizes[best], record.size)) {
          continue;
        }
        if (FitsSchedule(schedules[object], record)) best = object;
      }
      if (best == num_objects) {
        schedules.emplace_back();
        assignment.object_sizes.push_back(record.size);
      } else {
        assignment.object_sizes[best] = std::max(assignment.object_sizes[best], record.size);
      }
      schedules[best].emplace(record.first, record.last);
      assignment.object_ids[i] = best;
    }
  }
  return assignment;
}

ObjectsAssignment GreedyBestAssignment(const std::vector<UsageRecord>& records) {
  ObjectsAssignment by_size = GreedyBySizeAssignment(records);
  ObjectsAssignment by_breadth = GreedyByBreadthAssignment(records);
  if (SumOfSizes(by_breadth.object_sizes) < SumOfSizes(by_size.object_sizes)) return by_breadth;
  return by_size;
}

}  // namespace memory
}  // namespace mace
