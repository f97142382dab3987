#include "mace/core/memory/plan_checks.h"

#include <algorithm>
#include <string>
#include <utility>

#include "mace/utils/string_builder.h"

namespace mace {
namespace memory {
namespace {

template <typename... Args>
Status Fail(const Args&... args) {
  StringBuilder builder;
  (builder << ... << args);
  return Status::Error(std::move(builder).str());
}

// Tensors grouped by object must not be live at the same time.
template <typename Record>
Status CheckSharing(const std::vector<Record>& records, const std::vector<size_t>& object_ids,
                    size_t num_objects) {
  std::vector<std::vector<size_t>> users(num_objects);
  for (size_t i = 0; i < records.size(); ++i) users[object_ids[i]].push_back(i);
  for (size_t object = 0; object < num_objects; ++object) {
    std::vector<size_t>& tensors = users[object];
    std::sort(tensors.begin(), tensors.end(),
              [&records](size_t a, size_t b) { return records[a].first < records[b].first; });
    for (size_t k = 1; k < tensors.size(); ++k) {
      if (records[tensors[k - 1]].last >= records[tensors[k]].first) {
        return Fail("tensors ", tensors[k - 1], " and ", tensors[k], " share object ", object,
                    " while both are live");
      }
    }
  }
  return Status();
}

template <typename Record, typename Assignment, typename Fits>
Status CheckObjects(const std::vector<Record>& records, const Assignment& assignment, Fits fits) {
  if (assignment.object_ids.size() != records.size()) {
    return Fail("plan has ", assignment.object_ids.size(), " object ids for ", records.size(),
                " tensors");
  }
  const size_t num_objects = assignment.object_sizes.size();
  for (size_t i = 0; i < records.size(); ++i) {
    const size_t object = assignment.object_ids[i];
    if (object >= num_objects) return Fail("tensor ", i, " has no valid object (", object, ")");
    if (!fits(assignment.object_sizes[object], records[i].size)) {
      return Fail("object ", object, " is too small for tensor ", i);
    }
  }
  return CheckSharing(records, assignment.object_ids, num_objects);
}

}  // namespace

Status CheckObjectsAssignment(const std::vector<UsageRecord>& records,
                              const ObjectsAssignment& assignment) {
  return CheckObjects(records, assignment,
                      [](size_t object, size_t tensor) { return object >= tensor; });
}

Status CheckImageObjectsAssignment(const std::vector<ImageUsageRecord>& records,
                                   const ImageObjectsAssignment& assignment) {
  return CheckObjects(records, assignment, [](const ImageSize& object, const ImageSize& tensor) {
    return object.width >= tensor.width && object.height >= tensor.height;
  });
}

Status CheckOffsetsAssignment(const std::vector<UsageRecord>& records,
                              const OffsetsAssignment& assignment, size_t alignment) {
  const size_t n = records.size();
  if (assignment.offsets.size() != n) {
    return Fail("plan has ", assignment.offsets.size(), " offsets for ", n, " tensors");
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t offset = assignment.offsets[i];
    if (alignment == 0 || offset % alignment != 0) {
      return Fail("tensor ", i, " offset ", offset, " is not a multiple of ", alignment);
    }
    if (offset > assignment.total_size || records[i].size > assignment.total_size - offset) {
      return Fail("tensor ", i, " ends past the arena (", assignment.total_size, " bytes)");
    }
  }
  // Sweep by first task: only tensors still live can collide with a new one.
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&records](size_t a, size_t b) { return records[a].first < records[b].first; });
  std::vector<size_t> live;
  for (size_t i : order) {
    const UsageRecord& record = records[i];
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](size_t j) { return records[j].last < record.first; }),
               live.end());
    for (size_t j : live) {
      const size_t a = assignment.offsets[i];
      const size_t b = assignment.offsets[j];
      if (record.size > 0 && records[j].size > 0 && a < b + records[j].size &&
          b < a + record.size) {
        return Fail("tensors ", j, " and ", i, " overlap in memory while both are live");
      }
    }
    live.push_back(i);
  }
  return Status();
}

}  // namespace memory
}  // namespace mace
