// Shared objects for 2D GPU images. An image can only hold a tensor it
// covers in both dimensions, and images are never resized, so the 1D
// strategies that grow objects do not apply.
#include <cstdlib>
#include <list>
#include <map>
#include <utility>
#include <vector>

#include "mace/core/memory/in_use_queue.h"
#include "mace/core/memory/strategies.h"
#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {
namespace {

bool Covers(const ImageSize& object, const ImageSize& tensor) {
  return object.width >= tensor.width && object.height >= tensor.height;
}

size_t AreaDifference(const ImageSize& a, const ImageSize& b) {
  return a.area() > b.area() ? a.area() - b.area() : b.area() - a.area();
}

}  // namespace

ImageObjectsAssignment NaiveImageAssignment(const std::vector<ImageUsageRecord>& records) {
  ImageObjectsAssignment assignment;
  for (size_t i = 0; i < records.size(); ++i) {
    assignment.object_ids.push_back(i);
    assignment.object_sizes.push_back(records[i].size);
  }
  return assignment;
}

ImageObjectsAssignment EqualityImageAssignment(const std::vector<ImageUsageRecord>& records) {
  ImageObjectsAssignment assignment;
  assignment.object_ids.assign(records.size(), kNotAssigned);
  std::map<std::pair<size_t, size_t>, std::vector<size_t>> pool;  // LIFO per exact size
  InUseQueue in_use;
  for (size_t i : OrderByFirstTask(records)) {
    const ImageUsageRecord& record = records[i];
    in_use.ReleaseBefore(record.first, [&](size_t object_id) {
      const ImageSize& size = assignment.object_sizes[object_id];
      pool[{size.width, size.height}].push_back(object_id);
    });
    auto it = pool.find({record.size.width, record.size.height});
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

ImageObjectsAssignment GreedyInOrderImageAssignment(const std::vector<ImageUsageRecord>& records) {
  ImageObjectsAssignment assignment;
  assignment.object_ids.assign(records.size(), kNotAssigned);
  std::list<size_t> pool;  // free objects in release order
  InUseQueue in_use;
  for (size_t i : OrderByFirstTask(records)) {
    const ImageUsageRecord& record = records[i];
    in_use.ReleaseBefore(record.first, [&](size_t object_id) { pool.push_back(object_id); });
    auto best = pool.end();
    size_t best_difference = 0;
    for (auto it = pool.begin(); it != pool.end(); ++it) {
      const ImageSize& object = assignment.object_sizes[*it];
      if (!Covers(object, record.size)) continue;
      const size_t difference = AreaDifference(object, record.size);
      if (best == pool.end() || difference < best_difference) {
        best = it;
        best_difference = difference;
      }
    }
    size_t object_id;
    if (best == pool.end()) {
      object_id = assignment.object_sizes.size();
      assignment.object_sizes.push_back(record.size);
    } else {
      object_id = *best;
      pool.erase(best);
    }
    assignment.object_ids[i] = object_id;
    in_use.Push(record.last, object_id);
  }
  return assignment;
}

}  // namespace memory
}  // namespace mace
