// The static structure the exact offset search works on: buffers with
// aligned sizes, the time sections they span, who overlaps whom, and the
// independent components of the overlap graph.
#ifndef MACE_CORE_MEMORY_SEARCH_PROBLEM_H_
#define MACE_CORE_MEMORY_SEARCH_PROBLEM_H_

#include <cstdint>
#include <vector>

#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

// A contiguous range of sections [lo, hi) and the buffers inside it. Buffers
// of different partitions never overlap in time, so partitions are solved
// independently.
struct Partition {
  int lo = 0;
  int hi = 0;
  std::vector<int> buffers;
};

struct SearchProblem {
  // Per buffer. Sizes are rounded up to the alignment, which makes every
  // stacking offset aligned without further bookkeeping.
  std::vector<int64_t> sizes;
  std::vector<int64_t> lengths;  // lifetime in tasks, for ordering heuristics
  std::vector<int> begin;        // sections [begin, end)
  std::vector<int> end;
  std::vector<std::vector<int>> overlaps;
  // Per section: the buffers live in it. A section is a run of tasks with
  // one live set.
  std::vector<std::vector<int>> sections;
  std::vector<Partition> partitions;
  // Max over sections of the summed (aligned) sizes.
  int64_t max_live = 0;
};

// Buffers are the records with a non-zero size, in order; `record_of[b]` is
// the record index of buffer b.
SearchProblem BuildSearchProblem(const std::vector<UsageRecord>& records, size_t alignment,
                                 std::vector<size_t>* record_of);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_SEARCH_PROBLEM_H_
