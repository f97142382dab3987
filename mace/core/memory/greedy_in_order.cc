// GREEDY_IN_ORDER: walk tensors by first task and hand each the free object
// closest in size, growing it if it is smaller.
#include <iterator>
#include <set>
#include <utility>
#include <vector>

#include "mace/core/memory/in_use_queue.h"
#include "mace/core/memory/strategies.h"
#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {

ObjectsAssignment GreedyInOrderAssignment(const std::vector<UsageRecord>& records) {
  ObjectsAssignment assignment;
  assignment.object_ids.assign(records.size(), kNotAssigned);
  std::set<std::pair<size_t, size_t>> pool;  // free objects by (size, id)
  InUseQueue in_use;
  for (size_t i : OrderByFirstTask(records)) {
    const UsageRecord& record = records[i];
    in_use.ReleaseBefore(record.first, [&](size_t object_id) {
      pool.emplace(assignment.object_sizes[object_id], object_id);
    });
    size_t object_id;
    if (pool.empty()) {
      object_id = assignment.object_sizes.size();
      assignment.object_sizes.push_back(record.size);
    } else {
      // A: the smallest object that already fits. B: the largest smaller one.
      // Growing B wastes (tensor - B); taking A wastes (A - tensor). B wins
      // only when strictly cheaper.
      auto best = pool.lower_bound({record.size, 0});
      if (best != pool.begin()) {
        auto smaller = std::prev(best);
        if (best == pool.end() || record.size - smaller->first < best->first - record.size) {
          best = smaller;
        }
      }
      object_id = best->second;
      pool.erase(best);
      if (assignment.object_sizes[object_id] < record.size) {
        assignment.object_sizes[object_id] = record.size;
      }
    }
    assignment.object_ids[i] = object_id;
    in_use.Push(record.last, object_id);
  }
  return assignment;
}

}  // namespace memory
}  // namespace mace
