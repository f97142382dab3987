// GREEDY_BY_SIZE for one arena (Pisarchyk & Lee 2020, section 5.2): place
// the largest tensors first, each into a gap between tensors whose lifetimes
// overlap its own. The gap below the lowest such tensor counts too: XNNPACK
// once skipped it and MobileNet v1 needed 7% more memory (PR 10801).
#include <algorithm>
#include <numeric>
#include <vector>

#include "mace/core/memory/strategies.h"

namespace mace {
namespace memory {
namespace {

bool Overlap(const UsageRecord& a, const UsageRecord& b) {
  return a.first <= b.last && b.first <= a.last;
}

OffsetsAssignment PlaceBySize(const std::vector<UsageRecord>& records, size_t alignment,
                              bool best_fit) {
  const size_t n = records.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&records](size_t a, size_t b) {
    return records[a].size > records[b].size;
  });

  OffsetsAssignment assignment;
  assignment.offsets.assign(n, 0);
  std::vector<size_t> placed;  // by offset, ties in placement order
  for (size_t i : order) {
    const UsageRecord& record = records[i];
    size_t prev_end = 0;  // aligned end of the overlapping tensors seen so far
    size_t best_offset = kNotAssigned;
    size_t best_gap = kNotAssigned;
    for (size_t j : placed) {
      if (!Overlap(record, records[j])) continue;
      const size_t offset = assignment.offsets[j];
      if (offset >= prev_end) {
        const size_t gap = offset - prev_end;
        if (gap >= record.size && gap < best_gap) {
          best_gap = gap;
          best_offset = prev_end;
          if (!best_fit) break;
        }
      }
      prev_end = std::max(prev_end, AlignUp(offset + records[j].size, alignment));
    }
    const size_t offset = best_offset == kNotAssigned ? prev_end : best_offset;
    assignment.offsets[i] = offset;
    assignment.total_size = std::max(assignment.total_size, offset + record.size);
    auto at = std::upper_bound(placed.begin(), placed.end(), offset,
                               [&assignment](size_t value, size_t j) {
                                 return value < assignment.offsets[j];
                               });
    placed.insert(at, i);
  }
  return assignment;
}

}  // namespace

OffsetsAssignment GreedyBySizeOffsets(const std::vector<UsageRecord>& records, size_t alignment) {
  return PlaceBySize(records, alignment, /*best_fit=*/true);
}

OffsetsAssignment FirstFitBySizeOffsets(const std::vector<UsageRecord>& records,
                                        size_t alignment) {
  return PlaceBySize(records, alignment, /*best_fit=*/false);
}

}  // namespace memory
}  // namespace mace
