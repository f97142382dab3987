#include "mace/core/memory/search_state.h"

#include <algorithm>

namespace mace {
namespace memory {

SearchState::SearchState(const SearchProblem& problem, int64_t capacity)
    : p_(problem), capacity_(capacity) {
  const size_t n = p_.sizes.size();
  const size_t num_sections = p_.sections.size();
  placed_.assign(n, 0);
  min_offset_.assign(n, 0);
  remaining_.assign(num_sections, 0);
  floor_.assign(num_sections, kNoOffset);
  at_floor_.assign(num_sections, 0);
  raised_.assign(num_sections + 1, 0);
  cuts_.assign(num_sections, 0);
  stamp_of_.assign(num_sections, 0);
  live_ = p_.sections;
  num_unplaced_.assign(num_sections, 0);
  first_slot_.assign(n, 0);
  size_t slots = 0;
  for (size_t b = 0; b < n; ++b) {
    first_slot_[b] = slots;
    slots += static_cast<size_t>(p_.end[b] - p_.begin[b]);
  }
  slot_.assign(slots, 0);
}

void SearchState::Reset(const Partition& partition) {
  for (int s = partition.lo; s < partition.hi; ++s) {
    remaining_[s] = 0;
    floor_[s] = kNoOffset;
    cuts_[s] = 0;
    live_[s] = p_.sections[s];
    num_unplaced_[s] = static_cast<int>(live_[s].size());
    at_floor_[s] = num_unplaced_[s];
    for (size_t k = 0; k < live_[s].size(); ++k) {
      const int b = live_[s][k];
      slot_[first_slot_[b] + (s - p_.begin[b])] = static_cast<int>(k);
    }
  }
  for (int b : partition.buffers) {
    placed_[b] = 0;
    min_offset_[b] = 0;
    for (int s = p_.begin[b]; s < p_.end[b]; ++s) {
      remaining_[s] += p_.sizes[b];
      floor_[s] = 0;
      if (s + 1 < p_.end[b]) ++cuts_[s];
    }
  }
  offset_trail_.clear();
  floor_trail_.clear();
}

void SearchState::MarkSection(int s) {
  if (stamp_of_[s] == stamp_) return;
  stamp_of_[s] = stamp_;
  marked_.push_back(s);
}

void SearchState::SetFloor(int s, int64_t floor, int at_floor) {
  if (floor == floor_[s] && at_floor == at_floor_[s]) return;
  floor_trail_.push_back({s, at_floor_[s], floor_[s]});
  floor_[s] = floor;
  at_floor_[s] = at_floor;
}

void SearchState::LeaveFloor(int s, int64_t old) {
  if (floor_[s] != old) return;
  SetFloor(s, old, at_floor_[s] - 1);
  if (at_floor_[s] <= 0) MarkSection(s);
}

void SearchState::RecomputeFloor(int s) {
  int64_t floor = kNoOffset;
  int at_floor = 0;
  const int* unplaced = live_[s].data();
  for (int k = 0; k < num_unplaced_[s]; ++k) {
    const int64_t offset = min_offset_[unplaced[k]];
    if (offset < floor) {
      floor = offset;
      at_floor = 1;
    } else if (offset == floor) {
      ++at_floor;
    }
  }
  SetFloor(s, floor, at_floor);
}

SearchState::Mark SearchState::Place(int b, int64_t offset) {
  const Mark mark{offset_trail_.size(), floor_trail_.size()};
  const int64_t top = offset + p_.sizes[b];
  const int lo = p_.begin[b];
  const int hi = p_.end[b];
  placed_[b] = 1;
  ++stamp_;
  marked_.clear();
  for (int s = lo; s < hi; ++s) {
    remaining_[s] -= p_.sizes[b];
    if (s + 1 < hi) --cuts_[s];
    // Swap b behind the unplaced buffers; Undo only has to count it back.
    int& mine = slot_[first_slot_[b] + (s - p_.begin[b])];
    const int last = --num_unplaced_[s];
    const int other = live_[s][last];
    live_[s][mine] = other;
    slot_[first_slot_[other] + (s - p_.begin[other])] = mine;
    live_[s][last] = b;
    mine = last;
    raised_[s] = 0;
    MarkSection(s);  // for ChangedSectionsFit()
  }
  raised_[hi] = 0;
  // Every buffer left in b's sections overlaps b and now starts at `top`
  // or higher. Raised buffers are counted there with a difference array
  // over [lo, hi); elsewhere a floor can only rise where every buffer at it
  // was raised.
  for (int other : p_.overlaps[b]) {
    if (placed_[other] || min_offset_[other] >= top) continue;
    const int64_t old = min_offset_[other];
    offset_trail_.emplace_back(other, old);
    min_offset_[other] = top;
    ++raised_[std::max(lo, p_.begin[other])];
    --raised_[std::min(hi, p_.end[other])];
    for (int s = p_.begin[other]; s < lo; ++s) LeaveFloor(s, old);
    for (int s = hi; s < p_.end[other]; ++s) LeaveFloor(s, old);
  }
  int raised = 0;
  for (int s = lo; s < hi; ++s) {
    raised += raised_[s];
    if (num_unplaced_[s] == 0) {
      SetFloor(s, kNoOffset, 0);
    } else if (raised > 0) {
      SetFloor(s, top, raised);  // may undercount buffers already at top
    } else {
      RecomputeFloor(s);
    }
  }
  for (int s : marked_) {
    if (s < lo || s >= hi) RecomputeFloor(s);
  }
  return mark;
}

void SearchState::Undo(int b, const Mark& mark) {
  while (floor_trail_.size() > mark.floors) {
    const FloorChange& change = floor_trail_.back();
    floor_[change.section] = change.floor;
    at_floor_[change.section] = change.at_floor;
    floor_trail_.pop_back();
  }
  while (offset_trail_.size() > mark.offsets) {
    min_offset_[offset_trail_.back().first] = offset_trail_.back().second;
    offset_trail_.pop_back();
  }
  for (int s = p_.begin[b]; s < p_.end[b]; ++s) {
    remaining_[s] += p_.sizes[b];
    if (s + 1 < p_.end[b]) ++cuts_[s];
    ++num_unplaced_[s];
  }
  placed_[b] = 0;
}

bool SearchState::SectionsFit(int lo, int hi, int64_t offset) const {
  for (int s = lo; s < hi; ++s) {
    if (remaining_[s] > 0 && std::max(floor_[s], offset) + remaining_[s] > capacity_) return false;
  }
  return true;
}

bool SearchState::ChangedSectionsFit(int64_t offset) const {
  for (int s : marked_) {
    if (remaining_[s] > 0 && std::max(floor_[s], offset) + remaining_[s] > capacity_) return false;
  }
  return true;
}

int64_t SearchState::MaxRemaining(int lo, int hi) const {
  int64_t most = 0;
  for (int s = lo; s < hi; ++s) most = std::max(most, remaining_[s]);
  return most;
}

void SearchState::NewSplits(int b, int lo, int hi, std::vector<int>* splits) const {
  splits->clear();
  for (int s = std::max(p_.begin[b], lo); s + 1 < std::min(p_.end[b], hi); ++s) {
    if (cuts_[s] == 0) splits->push_back(s + 1);
  }
}

std::vector<int64_t> SearchState::Key(const Part& part, int64_t last_offset, int last_rank) const {
  std::vector<int64_t> key = {part.lo, part.hi, last_offset, last_rank};
  for (int b : part.buffers) {
    if (placed_[b]) continue;
    key.push_back(b);
    key.push_back(min_offset_[b]);
  }
  return key;
}

void FailedParts::Insert(std::vector<int64_t> key) {
  // Bounded memory: forgetting only costs repeated work.
  if (set_.size() >= (size_t{1} << 16)) set_.clear();
  set_.insert(std::move(key));
}

size_t FailedParts::Hash::operator()(const std::vector<int64_t>& key) const {
  uint64_t hash = 1469598103934665603ull;
  for (int64_t value : key) {
    hash ^= static_cast<uint64_t>(value);
    hash *= 1099511628211ull;
    hash ^= hash >> 29;
  }
  return static_cast<size_t>(hash);
}

}  // namespace memory
}  // namespace mace
