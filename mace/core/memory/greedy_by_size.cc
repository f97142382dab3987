// GREEDY_BY_SIZE for shared objects: TFLite's "size-distance priority".
// Tensors are ranked by how large they are relative to the positional maxima
// (the tensors that set an object's size go first), then by how close in time
// they are to an object they could reuse, so objects fill up without gaps.
#include <algorithm>
#include <vector>

#include "mace/core/memory/strategies.h"
#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {
namespace {

struct Priority {
  size_t position = 0;  // leading positional maxima >= size, minus 1
  size_t best_dist = kNotAssigned;
  size_t best_object = kNotAssigned;
  std::vector<size_t> dist;  // per object; kNotAssigned if they overlap

  void RecalcBestDist() {
    best_dist = kNotAssigned;
    best_object = kNotAssigned;
    for (size_t object = 0; object < dist.size(); ++object) {
      if (dist[object] < best_dist) {
        best_dist = dist[object];
        best_object = object;
      }
    }
  }
};

// Higher priority: smaller position, then smaller distance, then larger size.
// Equal priorities keep the lower index (the caller scans in index order).
bool Before(const Priority& a, size_t a_size, const Priority& b, size_t b_size) {
  if (a.position != b.position) return a.position < b.position;
  if (a.best_dist != b.best_dist) return a.best_dist < b.best_dist;
  return a_size > b_size;
}

// Gap in tasks between two disjoint lifetimes, kNotAssigned if they overlap.
size_t Distance(const UsageRecord& a, const UsageRecord& b) {
  if (a.last < b.first) return static_cast<size_t>(b.first - a.last);
  if (b.last < a.first) return static_cast<size_t>(a.first - b.last);
  return kNotAssigned;
}

}  // namespace

ObjectsAssignment GreedyBySizeAssignment(const std::vector<UsageRecord>& records) {
  const size_t n = records.size();
  std::vector<size_t> sizes(n);
  for (size_t i = 0; i < n; ++i) sizes[i] = records[i].size;
  const std::vector<size_t> maxima = PositionalMaxima(BuildTimeLineFor(records), sizes);

  std::vector<Priority> priority(n);
  for (size_t i = 0; i < n; ++i) {
    size_t pos = 0;
    while (pos < maxima.size() && maxima[pos] >= sizes[i]) ++pos;
    // Every tensor is live somewhere, so maxima[0] >= its size and pos >= 1.
    priority[i].position = pos - 1;
  }

  ObjectsAssignment assignment;
  assignment.object_ids.assign(n, kNotAssigned);
  for (size_t step = 0; step < n; ++step) {
    size_t chosen = kNotAssigned;
    for (size_t i = 0; i < n; ++i) {
      if (assignment.object_ids[i] != kNotAssigned) continue;
      if (chosen == kNotAssigned ||
          Before(priority[i], sizes[i], priority[chosen], sizes[chosen])) {
        chosen = i;
      }
    }
    size_t object = priority[chosen].best_object;
    const bool new_object = priority[chosen].best_dist == kNotAssigned;
    if (new_object) {
      object = assignment.object_sizes.size();
      assignment.object_sizes.push_back(sizes[chosen]);
    } else {
      assignment.object_sizes[object] = std::max(assignment.object_sizes[object], sizes[chosen]);
    }
    assignment.object_ids[chosen] = object;

    // Only distances to `object` changed; refresh them for waiting tensors.
    for (size_t i = 0; i < n; ++i) {
      if (assignment.object_ids[i] != kNotAssigned) continue;
      Priority& info = priority[i];
      if (!new_object && info.dist[object] == kNotAssigned) continue;
      const size_t dist = Distance(records[i], records[chosen]);
      if (new_object) {
        info.dist.push_back(dist);
      } else if (dist == kNotAssigned) {
        info.dist[object] = kNotAssigned;
        if (info.best_object == object) info.RecalcBestDist();
      } else {
        info.dist[object] = std::min(info.dist[object], dist);
      }
      if (dist < info.best_dist) {
        info.best_dist = dist;
        info.best_object = object;
      }
    }
  }
  return assignment;
}

}  // namespace memory
}  // namespace mace
