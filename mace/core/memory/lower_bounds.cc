#include "mace/core/memory/lower_bounds.h"

#include <algorithm>
#include <set>

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
  // A sweep over start and end events instead of the segment lists: the
  // default planner reports this bound for every graph, so it must stay
  // O(n log n) even when thousands of tensors are live at once.
  struct Event {
    TaskId time;
    bool starts;  // ends sort first: a tensor ending at t - 1 is gone at t
    size_t index;
    bool operator<(const Event& other) const {
      if (time != other.time) return time < other.time;
      return starts < other.starts;
    }
  };
  std::vector<Event> events;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].size == 0) continue;
    events.push_back({records[i].first, true, i});
    events.push_back({records[i].last + 1, false, i});
  }
  std::sort(events.begin(), events.end());
  size_t stacked = 0;
  std::multiset<size_t> savings;  // AlignUp(size) - size of the live tensors
  size_t bound = 0;
  for (size_t k = 0; k < events.size(); ++k) {
    const size_t size = records[events[k].index].size;
    const size_t aligned = AlignUp(size, alignment);
    if (events[k].starts) {
      stacked += aligned;
      if (alignment > 1) savings.insert(aligned - size);
    } else {
      stacked -= aligned;
      if (alignment > 1) savings.erase(savings.find(aligned - size));
    }
    const bool last_at_time = k + 1 == events.size() || events[k + 1].time != events[k].time;
    if (last_at_time && events[k].starts) {
      const size_t top_saving = savings.empty() ? 0 : *savings.rbegin();
      bound = std::max(bound, stacked - top_saving);
    }
  }
  return bound;
}

}  // namespace memory
}  // namespace mace
