#include "mace/core/memory/search_problem.h"

#include <algorithm>
#include <numeric>

#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {

SearchProblem BuildSearchProblem(const std::vector<UsageRecord>& records, size_t alignment,
                                 std::vector<size_t>* record_of) {
  record_of->clear();
  std::vector<UsageRecord> buffers;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].size == 0) continue;  // occupies nothing; placed at 0
    record_of->push_back(i);
    buffers.push_back(records[i]);
  }
  const TimeLine time_line = BuildTimeLineFor(buffers);
  const int n = static_cast<int>(buffers.size());

  SearchProblem problem;
  problem.begin = time_line.begin;
  problem.end = time_line.end;
  for (const UsageRecord& buffer : buffers) {
    problem.sizes.push_back(static_cast<int64_t>(AlignUp(buffer.size, alignment)));
    problem.lengths.push_back(buffer.last - buffer.first + 1);
  }
  problem.sections.resize(time_line.num_segments());
  for (int s = 0; s < time_line.num_segments(); ++s) {
    int64_t live = 0;
    for (size_t b : time_line.live[s]) {
      problem.sections[s].push_back(static_cast<int>(b));
      live += problem.sizes[b];
    }
    problem.max_live = std::max(problem.max_live, live);
  }

  // Overlaps: sweep buffers by first section; the candidates for buffer b
  // are those that started earlier and have not ended.
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&problem](int a, int b) { return problem.begin[a] < problem.begin[b]; });
  problem.overlaps.resize(n);
  std::vector<int> active;
  for (int b : order) {
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](int a) { return problem.end[a] <= problem.begin[b]; }),
                 active.end());
    for (int a : active) {
      problem.overlaps[a].push_back(b);
      problem.overlaps[b].push_back(a);
    }
    active.push_back(b);
  }

  // Partitions: maximal section ranges not cut by a boundary that no buffer
  // crosses.
  int reach = -1;
  for (int b : order) {
    if (problem.begin[b] >= reach) {
      problem.partitions.push_back({problem.begin[b], problem.end[b], {}});
    }
    Partition& partition = problem.partitions.back();
    partition.hi = std::max(partition.hi, problem.end[b]);
    partition.buffers.push_back(b);
    reach = std::max(reach, problem.end[b]);
  }
  return problem;
}

}  // namespace memory
}  // namespace mace
