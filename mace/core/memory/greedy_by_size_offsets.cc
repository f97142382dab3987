// GREEDY_BY_SIZE for one arena (Pisarchyk & Lee 2020, section 5.2): place
// the largest tensors first, each into a gap between tensors whose lifetimes
// overlap its own. The gap below the lowest such tensor counts too: XNNPACK
// once skipped it, and MobileNet v1 fp32 needed 23.86 instead of 22.33 MiB.
//
// The engine plans every graph at init with this, so it must be fast on
// large graphs. Each tensor only looks at the placed tensors whose
// lifetimes overlap its own, found through precomputed overlap lists; a
// graph where nearly everything overlaps everything would make those lists
// quadratic in memory, so above a budget the placed tensors are scanned
// instead. Both walks see the same tensors in the same order.
#include <algorithm>
#include <numeric>
#include <vector>

#include "mace/core/memory/strategies.h"
#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {
namespace {

bool Overlap(const UsageRecord& a, const UsageRecord& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Overlapping pairs: for each tensor, those that started no later and have
// not ended when it starts.
size_t CountOverlapPairs(const std::vector<UsageRecord>& records) {
  std::vector<TaskId> firsts, lasts;
  for (const UsageRecord& record : records) {
    firsts.push_back(record.first);
    lasts.push_back(record.last);
  }
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  size_t pairs = 0;
  for (size_t k = 0; k < firsts.size(); ++k) {
    const size_t ended = std::lower_bound(lasts.begin(), lasts.end(), firsts[k]) - lasts.begin();
    pairs += k - std::min(k, ended);
  }
  return pairs;
}

// neighbours[start[i] .. start[i + 1]) are the tensors overlapping i.
// Returns false (and leaves them empty) past the budget.
bool OverlapLists(const std::vector<UsageRecord>& records, size_t max_pairs,
                  std::vector<size_t>* start, std::vector<size_t>* neighbours) {
  if (CountOverlapPairs(records) > max_pairs) return false;
  // Two sweeps: the first counts each tensor's neighbours, the second
  // fills them in, so the lists live in one flat array.
  const std::vector<size_t> order = OrderByFirstTask(records);
  std::vector<size_t> degree(records.size() + 1, 0);
  std::vector<size_t> active;
  for (int pass = 0; pass < 2; ++pass) {
    active.clear();
    for (size_t i : order) {
      active.erase(std::remove_if(active.begin(), active.end(),
                                  [&](size_t j) { return records[j].last < records[i].first; }),
                   active.end());
      for (size_t j : active) {
        if (pass == 0) {
          ++degree[i];
          ++degree[j];
        } else {
          (*neighbours)[--degree[i]] = j;
          (*neighbours)[--degree[j]] = i;
        }
      }
      active.push_back(i);
    }
    if (pass == 0) {
      // degree[i] becomes the end of i's slice; the fill counts it down to
      // the start.
      std::partial_sum(degree.begin(), degree.end(), degree.begin());
      neighbours->assign(degree.back(), 0);
    }
  }
  start->assign(degree.begin(), degree.end());
  return true;
}

// Chooses the offset for `record` given the overlapping placed tensors in
// (offset, placement) order: the smallest gap that holds it (or the lowest,
// for first fit), else the aligned top.
class GapFinder {
 public:
  GapFinder(const UsageRecord& record, size_t alignment, bool best_fit)
      : size_(record.size), alignment_(alignment), best_fit_(best_fit) {}

  // Returns false once first fit has its answer.
  bool Visit(size_t offset, size_t size) {
    if (offset >= prev_end_) {
      const size_t gap = offset - prev_end_;
      if (gap >= size_ && gap < best_gap_) {
        best_gap_ = gap;
        best_offset_ = prev_end_;
        if (!best_fit_) return false;
      }
    }
    prev_end_ = std::max(prev_end_, AlignUp(offset + size, alignment_));
    return true;
  }

  size_t offset() const { return best_offset_ == kNotAssigned ? prev_end_ : best_offset_; }

 private:
  const size_t size_;
  const size_t alignment_;
  const bool best_fit_;
  size_t prev_end_ = 0;  // aligned end of the overlapping tensors seen so far
  size_t best_offset_ = kNotAssigned;
  size_t best_gap_ = kNotAssigned;
};

}  // namespace

OffsetsAssignment PlaceBySize(const std::vector<UsageRecord>& records, size_t alignment,
                              bool best_fit, size_t max_overlap_pairs,
                              const std::vector<size_t>* fixed_offsets) {
  const size_t n = records.size();
  auto is_fixed = [fixed_offsets](size_t i) {
    return fixed_offsets != nullptr && (*fixed_offsets)[i] != kNotAssigned;
  };
  // Preset records come first in the order, so they are "placed" before any
  // other tensor looks for a gap.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (is_fixed(a) != is_fixed(b)) return is_fixed(a);
    return records[a].size > records[b].size;
  });

  OffsetsAssignment assignment;
  assignment.offsets.assign(n, 0);
  std::vector<size_t> start, neighbours;
  const bool sparse = OverlapLists(records, max_overlap_pairs, &start, &neighbours);
  std::vector<size_t> placed_at(n, kNotAssigned);  // placement step, if placed
  std::vector<size_t> placed;                      // dense walk: by offset, ties in placement order
  // Sparse walk: the placed neighbours, keyed by (offset, placement step).
  struct Nearby {
    size_t offset;
    size_t step;
    size_t size;
    bool operator<(const Nearby& other) const {
      return offset != other.offset ? offset < other.offset : step < other.step;
    }
  };
  std::vector<Nearby> nearby;
  for (size_t step = 0; step < n; ++step) {
    const size_t i = order[step];
    const UsageRecord& record = records[i];
    GapFinder finder(record, alignment, best_fit);
    if (is_fixed(i)) {
      // Nothing to search: the position is given.
    } else if (sparse) {
      nearby.clear();
      for (size_t k = start[i]; k < start[i + 1]; ++k) {
        const size_t j = neighbours[k];
        if (placed_at[j] != kNotAssigned) {
          nearby.push_back({assignment.offsets[j], placed_at[j], records[j].size});
        }
      }
      std::sort(nearby.begin(), nearby.end());
      for (const Nearby& other : nearby) {
        if (!finder.Visit(other.offset, other.size)) break;
      }
    } else {
      for (size_t j : placed) {
        if (!Overlap(record, records[j])) continue;
        if (!finder.Visit(assignment.offsets[j], records[j].size)) break;
      }
    }
    const size_t offset = is_fixed(i) ? (*fixed_offsets)[i] : finder.offset();
    assignment.offsets[i] = offset;
    placed_at[i] = step;
    assignment.total_size = std::max(assignment.total_size, offset + record.size);
    if (!sparse) {
      auto at = std::upper_bound(
          placed.begin(), placed.end(), offset,
          [&assignment](size_t value, size_t j) { return value < assignment.offsets[j]; });
      placed.insert(at, i);
    }
  }
  return assignment;
}

OffsetsAssignment GreedyBySizeOffsets(const std::vector<UsageRecord>& records, size_t alignment) {
  return PlaceBySize(records, alignment, /*best_fit=*/true);
}

OffsetsAssignment FirstFitBySizeOffsets(const std::vector<UsageRecord>& records, size_t alignment) {
  return PlaceBySize(records, alignment, /*best_fit=*/false);
}

}  // namespace memory
}  // namespace mace
