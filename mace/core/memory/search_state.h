// The mutable state of the exact offset search: which buffers are placed,
// the lowest offset each unplaced buffer can still take, and per section
// the bytes still to place and the lowest offset left for them. Every
// change is recorded so a branch can be undone exactly.
#ifndef MACE_CORE_MEMORY_SEARCH_STATE_H_
#define MACE_CORE_MEMORY_SEARCH_STATE_H_

#include <cstdint>
#include <limits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mace/core/memory/search_problem.h"

namespace mace {
namespace memory {

constexpr int64_t kNoOffset = std::numeric_limits<int64_t>::max();

// A piece of a partition that is searched on its own: a section range and
// the buffers in it (placed ones are skipped as the search goes).
struct Part {
  int lo = 0;
  int hi = 0;
  std::vector<int> buffers;
  std::vector<int> rank;  // by buffer; the order tried at equal offsets
};

class SearchState {
 public:
  SearchState(const SearchProblem& problem, int64_t capacity);

  // Nothing of `partition` placed.
  void Reset(const Partition& partition);

  struct Mark {
    size_t offsets;
    size_t floors;
  };
  // Places unplaced buffer `b` at its minimum offset `offset`.
  Mark Place(int b, int64_t offset);
  void Undo(int b, const Mark& mark);

  // Section inference over [lo, hi): every section's remaining bytes fit
  // above max(its floor, offset), offset being the lowest any later buffer
  // may take.
  bool SectionsFit(int lo, int hi, int64_t offset) const;
  // The same, only for the sections the last Place() changed. The others
  // only see the offset rise, which MaxRemaining() covers before placing.
  bool ChangedSectionsFit(int64_t offset) const;
  // The most bytes left to place in one section of [lo, hi).
  int64_t MaxRemaining(int lo, int hi) const;
  // Boundaries (as the first section of the right side) inside (lo, hi)
  // that no unplaced buffer crosses since `b` was placed.
  void NewSplits(int b, int lo, int hi, std::vector<int>* splits) const;
  // Everything the search of `part` depends on, for remembering failures.
  std::vector<int64_t> Key(const Part& part, int64_t last_offset, int last_rank) const;

  const SearchProblem& problem() const { return p_; }
  int64_t capacity() const { return capacity_; }
  bool placed(int b) const { return placed_[b] != 0; }
  int64_t min_offset(int b) const { return min_offset_[b]; }
  const std::vector<int64_t>& remaining() const { return remaining_; }

 private:
  void MarkSection(int s);
  void SetFloor(int s, int64_t floor, int at_floor);
  void RecomputeFloor(int s);
  // A buffer of section s rose from `old`; if that was the floor, one
  // fewer buffer is known to sit there.
  void LeaveFloor(int s, int64_t old);

  const SearchProblem& p_;
  const int64_t capacity_;
  std::vector<char> placed_;
  std::vector<int64_t> min_offset_;  // highest top of placed overlapping buffers
  std::vector<int64_t> remaining_;   // per section: unplaced bytes
  std::vector<int64_t> floor_;       // per section: lowest unplaced min_offset
  // Per section: unplaced buffers known to sit at the floor. Never more
  // than the true number, so when it drops to zero the floor may rise and
  // is recomputed; fewer only costs an early recomputation.
  std::vector<int> at_floor_;
  std::vector<int> cuts_;  // per boundary s|s+1: unplaced buffers crossing
  // Per section, its buffers with the unplaced ones first: floors are
  // recomputed often, and only over what is left. live_[s] holds the
  // buffers, num_unplaced_[s] how many lead; slot_[first_slot_[b] + s -
  // begin[b]] is where b sits in live_[s].
  std::vector<std::vector<int>> live_;
  std::vector<int> num_unplaced_;
  std::vector<size_t> first_slot_;
  std::vector<int> slot_;
  std::vector<std::pair<int, int64_t>> offset_trail_;
  struct FloorChange {
    int section;
    int at_floor;
    int64_t floor;
  };
  std::vector<FloorChange> floor_trail_;
  std::vector<int> raised_;  // per section of the placed buffer, see Place()
  std::vector<int64_t> stamp_of_;
  std::vector<int> marked_;
  int64_t stamp_ = 0;
};

// Parts proven infeasible in the current search, by Key().
class FailedParts {
 public:
  bool Contains(const std::vector<int64_t>& key) const { return set_.count(key) > 0; }
  void Insert(std::vector<int64_t> key);

 private:
  struct Hash {
    size_t operator()(const std::vector<int64_t>& key) const;
  };
  std::unordered_set<std::vector<int64_t>, Hash> set_;
};

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_SEARCH_STATE_H_
