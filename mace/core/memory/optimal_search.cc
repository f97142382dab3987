#include "mace/core/memory/optimal_search.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

namespace mace {
namespace memory {
namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

enum class Result { kFound, kInfeasible, kNodeLimit, kTimeout };

// Static orderings: buffers that are hardest to place rank first. Keys are
// compared in the given order, larger first, then by buffer index.
enum Key { kSectionTotal, kLength, kArea };
const std::vector<std::vector<Key>>& Heuristics() {
  static const auto* heuristics = new std::vector<std::vector<Key>>{
      {kSectionTotal, kLength, kArea},
      {kLength, kArea, kSectionTotal},
      {kSectionTotal, kArea, kLength},
  };
  return *heuristics;
}

class Searcher {
 public:
  Searcher(const SearchProblem& problem, int64_t capacity, SearchClock::time_point deadline)
      : p_(problem), capacity_(capacity), deadline_(deadline) {
    const size_t n = p_.sizes.size();
    const size_t num_sections = p_.sections.size();
    offset_.assign(n, -1);
    min_offset_.assign(n, 0);
    solution_.assign(n, -1);
    total_.assign(num_sections, 0);
    floor_.assign(num_sections, 0);
    mark_.assign(num_sections, 0);
    cuts_.assign(num_sections, 0);
    for (size_t b = 0; b < n; ++b) {
      for (int s = p_.begin[b]; s < p_.end[b]; ++s) total_[s] += p_.sizes[b];
      for (int s = p_.begin[b]; s + 1 < p_.end[b]; ++s) ++cuts_[s];
    }
  }

  SearchOutcome Run(std::vector<int64_t>* offsets, SearchStats* stats) {
    SearchOutcome outcome = SearchOutcome::kFound;
    for (const Partition& partition : p_.partitions) {
      const Result result = RoundRobin(partition);
      if (result == Result::kInfeasible) outcome = SearchOutcome::kInfeasible;
      if (result == Result::kTimeout) outcome = SearchOutcome::kTimeout;
      if (result != Result::kFound) break;
    }
    stats->nodes += total_nodes_;
    if (outcome == SearchOutcome::kFound) *offsets = solution_;
    return outcome;
  }

 private:
  // Per (sub)partition: the static rank of each of its buffers.
  struct Context {
    const Partition* partition;
    std::vector<int> rank;  // indexed by buffer; only the partition's are set
  };

  struct Candidate {
    int64_t offset;
    int rank;
    int buffer;
  };

  // Tries the orderings in turn under a doubling node budget. A run that
  // finishes is conclusive either way.
  Result RoundRobin(const Partition& partition) {
    int64_t limit = std::max<int64_t>(64, static_cast<int64_t>(partition.buffers.size()));
    while (true) {
      limit = std::min<int64_t>(limit * 2, int64_t{1} << 60);
      for (size_t h = 0; h < Heuristics().size(); ++h) {
        heuristic_ = h;
        nodes_left_ = limit;
        const Result result = SolvePartition(partition);
        if (result != Result::kNodeLimit) return result;
      }
    }
  }

  Result SolvePartition(const Partition& partition) {
    Context context{&partition, std::vector<int>(p_.sizes.size(), 0)};
    std::vector<std::tuple<int64_t, int64_t, int64_t>> keys(p_.sizes.size());
    for (int b : partition.buffers) {
      int64_t section_total = 0;
      for (int s = p_.begin[b]; s < p_.end[b]; ++s) section_total = std::max(section_total, total_[s]);
      const int64_t values[] = {section_total, p_.lengths[b], p_.sizes[b] * p_.lengths[b]};
      const std::vector<Key>& order = Heuristics()[heuristic_];
      keys[b] = {values[order[0]], values[order[1]], values[order[2]]};
    }
    std::vector<int> ranked = partition.buffers;
    std::sort(ranked.begin(), ranked.end(), [&keys](int a, int b) {
      if (keys[a] != keys[b]) return keys[a] > keys[b];
      return a < b;
    });
    for (size_t r = 0; r < ranked.size(); ++r) context.rank[ranked[r]] = static_cast<int>(r);
    return Search(context, 0, -1);
  }

  Result Search(const Context& context, int64_t last_offset, int last_rank) {
    if (--nodes_left_ < 0) return Result::kNodeLimit;
    if ((++total_nodes_ & 1023) == 0 && SearchClock::now() > deadline_) timed_out_ = true;
    if (timed_out_) return Result::kTimeout;

    // No buffer goes at or above the lowest top another one could reach:
    // that one would fit underneath, so such a packing is dominated.
    int64_t min_height = kNone;
    for (int b : context.partition->buffers) {
      if (offset_[b] < 0) min_height = std::min(min_height, min_offset_[b] + p_.sizes[b]);
    }
    if (min_height == kNone) return Result::kFound;

    std::vector<Candidate> candidates;
    for (int b : context.partition->buffers) {
      if (offset_[b] >= 0) continue;
      const int64_t offset = min_offset_[b];
      const int rank = context.rank[b];
      if (offset < last_offset || (offset == last_offset && rank < last_rank)) continue;
      if (offset >= min_height || offset + p_.sizes[b] > capacity_) continue;
      candidates.push_back({offset, rank, b});
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      return std::tie(a.offset, a.rank) < std::tie(b.offset, b.rank);
    });
    for (const Candidate& candidate : candidates) {
      const Result result = Branch(context, candidate);
      if (result != Result::kInfeasible) return result;
    }
    return Result::kInfeasible;
  }

  Result Branch(const Context& context, const Candidate& candidate) {
    const size_t offset_mark = offset_changes_.size();
    const size_t floor_mark = floor_changes_.size();
    Place(candidate.buffer, candidate.offset);
    Result result = Result::kInfeasible;
    if (Check(*context.partition, candidate.offset)) {
      solution_[candidate.buffer] = candidate.offset;
      result = Continue(context, candidate);
    }
    Unplace(candidate.buffer, offset_mark, floor_mark);
    return result;
  }

  // After placing a buffer: split the partition where it was the last
  // unplaced buffer crossing a section boundary, else keep searching.
  Result Continue(const Context& context, const Candidate& candidate) {
    const int b = candidate.buffer;
    std::vector<int> bounds = {context.partition->lo};
    for (int s = p_.begin[b]; s + 1 < p_.end[b]; ++s) {
      if (--cuts_[s] == 0) bounds.push_back(s + 1);
    }
    Result result = Result::kFound;
    if (bounds.size() == 1) {
      result = Search(context, candidate.offset, candidate.rank);
    } else {
      bounds.push_back(context.partition->hi);
      for (size_t k = 0; k + 1 < bounds.size() && result == Result::kFound; ++k) {
        Partition part{bounds[k], bounds[k + 1], {}};
        for (int other : context.partition->buffers) {
          if (offset_[other] < 0 && p_.begin[other] < part.hi && p_.end[other] > part.lo) {
            part.buffers.push_back(other);
          }
        }
        if (!part.buffers.empty()) result = SolvePartition(part);
      }
    }
    for (int s = p_.begin[b]; s + 1 < p_.end[b]; ++s) ++cuts_[s];
    return result;
  }

  void Place(int b, int64_t offset) {
    offset_[b] = offset;
    const int64_t top = offset + p_.sizes[b];
    ++stamp_;
    marked_.clear();
    // A section's floor is the lowest offset any unplaced buffer in it can
    // still take; everything left there must fit above it. It can only rise
    // where the buffer that rose (or was placed) was the lowest one.
    for (int other : p_.overlaps[b]) {
      if (offset_[other] >= 0 || min_offset_[other] >= top) continue;
      const int64_t old = min_offset_[other];
      offset_changes_.push_back({other, old});
      min_offset_[other] = top;
      for (int s = p_.begin[other]; s < p_.end[other]; ++s) {
        if (floor_[s] == old) Mark(s);
      }
    }
    for (int s = p_.begin[b]; s < p_.end[b]; ++s) {
      total_[s] -= p_.sizes[b];
      if (floor_[s] == offset) Mark(s);
    }
    for (int s : marked_) {
      int64_t floor = kNone;
      for (int other : p_.sections[s]) {
        if (offset_[other] < 0) floor = std::min(floor, min_offset_[other]);
      }
      floor_changes_.push_back({s, floor_[s]});
      floor_[s] = floor;
    }
  }

  void Unplace(int b, size_t offset_mark, size_t floor_mark) {
    while (floor_changes_.size() > floor_mark) {
      floor_[floor_changes_.back().first] = floor_changes_.back().second;
      floor_changes_.pop_back();
    }
    while (offset_changes_.size() > offset_mark) {
      min_offset_[offset_changes_.back().first] = offset_changes_.back().second;
      offset_changes_.pop_back();
    }
    for (int s = p_.begin[b]; s < p_.end[b]; ++s) total_[s] += p_.sizes[b];
    offset_[b] = -1;
  }

  void Mark(int s) {
    if (mark_[s] == stamp_) return;
    mark_[s] = stamp_;
    marked_.push_back(s);
  }

  // Offsets only grow along a branch, so no remaining buffer goes below the
  // current offset: that raises every section's floor.
  bool Check(const Partition& partition, int64_t offset) const {
    for (int s = partition.lo; s < partition.hi; ++s) {
      if (total_[s] == 0) continue;
      if (std::max(floor_[s], offset) + total_[s] > capacity_) return false;
    }
    return true;
  }

  const SearchProblem& p_;
  const int64_t capacity_;
  const SearchClock::time_point deadline_;
  size_t heuristic_ = 0;
  int64_t nodes_left_ = 0;
  int64_t total_nodes_ = 0;
  bool timed_out_ = false;

  std::vector<int64_t> offset_;      // -1: unplaced
  std::vector<int64_t> min_offset_;  // highest top of placed overlapping buffers
  std::vector<int64_t> solution_;
  std::vector<int64_t> total_;       // per section: unplaced bytes
  std::vector<int64_t> floor_;       // per section
  std::vector<int> cuts_;            // per boundary s|s+1: unplaced buffers crossing
  std::vector<std::pair<int, int64_t>> offset_changes_;
  std::vector<std::pair<int, int64_t>> floor_changes_;
  std::vector<int64_t> mark_;
  std::vector<int> marked_;
  int64_t stamp_ = 0;
};

}  // namespace

SearchOutcome SearchAtCapacity(const SearchProblem& problem, int64_t capacity,
                               SearchClock::time_point deadline, std::vector<int64_t>* offsets,
                               SearchStats* stats) {
  Searcher searcher(problem, capacity, deadline);
  return searcher.Run(offsets, stats);
}

}  // namespace memory
}  // namespace mace
