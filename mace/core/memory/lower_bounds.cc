#include "mace/core/memory/lower_bounds.h"

#include <algorithm>

#include "mace/core/memory/strategies.h"
#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {

size_t ObjectsLowerBound(const std::vector<UsageRecord>& records) {
  std::vector<size_t> sizes;
  for (const UsageRecord& record : records) sizes.push_back(record.size);
  return SumOfSizes(PositionalMaxima(BuildTimeLineFor(records), sizes));
}

size_t ImageObjectsLowerBound(const std::vector<ImageUsageRecord>& records) {
  std::vector<size_t> areas;
  for (const ImageUsageRecord& record : records) areas.push_back(record.size.area());
  return SumOfSizes(PositionalMaxima(BuildTimeLineFor(records), areas));
}

size_t OffsetsLowerBound(const std::vector<UsageRecord>& records, size_t alignment) {
  const TimeLine time_line = BuildTimeLineFor(records);
  size_t bound = 0;
  for (const std::vector<size_t>& live : time_line.live) {
    size_t stacked = 0;
    size_t top_saving = 0;
    for (size_t i : live) {
      const size_t aligned = AlignUp(records[i].size, alignment);
      stacked += aligned;
      top_saving = std::max(top_saving, aligned - records[i].size);
    }
    bound = std::max(bound, stacked - top_saving);
  }
  return bound;
}

}  // namespace memory
}  // namespace mace
