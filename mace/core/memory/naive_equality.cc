// NAIVE and EQUALITY, the two strategies that never resize an object.
#include <map>
#include <vector>

#include "mace/core/memory/in_use_queue.h"
#include "mace/core/memory/strategies.h"
#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {

ObjectsAssignment NaiveAssignment(const std::vector<UsageRecord>& records) {
  ObjectsAssignment assignment;
  for (size_t i = 0; i < records.size(); ++i) {
    assignment.object_ids.push_back(i);
    assignment.object_sizes.push_back(records[i].size);
  }
  return assignment;
}

ObjectsAssignment EqualityAssignment(const std::vector<UsageRecord>& records) {
  ObjectsAssignment assignment;
  assignment.object_ids.assign(records.size(), kNotAssigned);
  // Free objects by exact size; the back of each list is the most recently
  // released one, which is the one reused (LIFO).
  std::map<size_t, std::vector<size_t>> pool;
  InUseQueue in_use;
  for (size_t i : OrderByFirstTask(records)) {
    const UsageRecord& record = records[i];
    in_use.ReleaseBefore(record.first, [&](size_t object_id) {
      pool[assignment.object_sizes[object_id]].push_back(object_id);
    });
    auto it = pool.find(record.size);
    size_t object_id;
    if (it == pool.end() || it->second.empty()) {
      object_id = assignment.object_sizes.size();
      assignment.object_sizes.push_back(record.size);
    } else {
      object_id = it->second.back();
      it->second.pop_back();
    }
    assignment.object_ids[i] = object_id;
    in_use.Push(record.last, object_id);
  }
  return assignment;
}

size_t SumOfSizes(const std::vector<size_t>& sizes) {
  size_t sum = 0;
  for (size_t size : sizes) sum += size;
  return sum;
}

}  // namespace memory
}  // namespace mace
