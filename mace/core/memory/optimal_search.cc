#include "mace/core/memory/optimal_search.h"

#include <algorithm>
#include <utility>

#include "mace/core/memory/search_order.h"
#include "mace/core/memory/search_state.h"

namespace mace {
namespace memory {
namespace {

enum class Result { kFound, kInfeasible, kNodeLimit, kTimeout };

struct Candidate {
  int64_t offset;
  int rank;
  int buffer;
  bool operator<(const Candidate& other) const {
    return offset != other.offset ? offset < other.offset : rank < other.rank;
  }
};

// One depth-first search under a fixed ranking and node limit.
class Searcher {
 public:
  Searcher(SearchState* state, int ordering, int round, int64_t node_limit,
           SearchClock::time_point deadline, int64_t step_limit, std::vector<int64_t>* solution)
      : state_(*state),
        ordering_(ordering),
        round_(round),
        nodes_left_(node_limit),
        deadline_(deadline),
        steps_left_(step_limit),
        solution_(*solution) {}

  Result Run(const Partition& partition) {
    Part part{partition.lo, partition.hi, partition.buffers, {}};
    part.rank = RankBuffers(state_.problem(), part.buffers, state_.remaining(), ordering_, round_);
    return Search(part, 0, -1, 0);
  }

  int64_t nodes() const { return nodes_; }
  int64_t steps() const { return steps_; }

 private:
  Result Search(const Part& part, int64_t last_offset, int last_rank, size_t depth) {
    if (--nodes_left_ < 0) return Result::kNodeLimit;
    if ((++nodes_ & 255) == 0 && SearchClock::now() > deadline_) timed_out_ = true;
    const int64_t cost = static_cast<int64_t>(part.buffers.size());
    if (steps_left_ < cost) timed_out_ = true;
    if (timed_out_) return Result::kTimeout;
    steps_left_ -= cost;
    steps_ += cost;

    const SearchProblem& p = state_.problem();
    // The lowest top any unplaced buffer can reach; nothing is placed at
    // or above it (dominance).
    int64_t min_height = kNoOffset;
    bool any = false;
    for (int b : part.buffers) {
      if (state_.placed(b)) continue;
      any = true;
      const int64_t top = state_.min_offset(b) + p.sizes[b];
      if (top > state_.capacity()) return Result::kInfeasible;
      min_height = std::min(min_height, top);
    }
    if (!any) return Result::kFound;

    if (candidates_.size() <= depth) candidates_.resize(depth + 1);
    std::vector<Candidate>& candidates = candidates_[depth];
    candidates.clear();
    // Placing at offset x lifts every later buffer to x or above, so x plus
    // the fullest section's remaining bytes must fit.
    const int64_t highest =
        std::min(min_height - 1, state_.capacity() - state_.MaxRemaining(part.lo, part.hi));
    for (int b : part.buffers) {
      if (state_.placed(b)) continue;
      const int64_t offset = state_.min_offset(b);
      if (offset > highest) continue;
      if (offset < last_offset || (offset == last_offset && part.rank[b] < last_rank)) continue;
      candidates.push_back({offset, part.rank[b], b});
    }
    std::sort(candidates.begin(), candidates.end());
    // Branch() may reuse deeper levels of candidates_, never this one.
    for (size_t k = 0; k < candidates_[depth].size(); ++k) {
      const Result result = Branch(part, candidates_[depth][k], depth);
      if (result != Result::kInfeasible) return result;
    }
    return Result::kInfeasible;
  }

  Result Branch(const Part& part, Candidate candidate, size_t depth) {
    const SearchState::Mark mark = state_.Place(candidate.buffer, candidate.offset);
    Result result = Result::kInfeasible;
    if (state_.ChangedSectionsFit(candidate.offset)) {
      solution_[candidate.buffer] = candidate.offset;
      std::vector<int> splits;
      state_.NewSplits(candidate.buffer, part.lo, part.hi, &splits);
      if (splits.empty()) {
        result = Search(part, candidate.offset, candidate.rank, depth + 1);
      } else {
        result = SolveSides(part, splits, candidate, depth);
      }
    }
    state_.Undo(candidate.buffer, mark);
    return result;
  }

  // The part fell apart into independent sides; each must fit on its own.
  Result SolveSides(const Part& part, const std::vector<int>& splits, const Candidate& candidate,
                    size_t depth) {
    std::vector<Part> sides;
    int lo = part.lo;
    for (size_t k = 0; k <= splits.size(); ++k) {
      const int hi = k < splits.size() ? splits[k] : part.hi;
      Part side{lo, hi, {}, {}};
      for (int b : part.buffers) {
        if (!state_.placed(b) && state_.problem().begin[b] < hi && state_.problem().end[b] > lo) {
          side.buffers.push_back(b);
        }
      }
      if (!side.buffers.empty()) sides.push_back(std::move(side));
      lo = hi;
    }
    // Larger sides first: they are likelier to fail, which ends the branch
    // before the others are searched.
    std::stable_sort(sides.begin(), sides.end(), [](const Part& a, const Part& b) {
      return a.buffers.size() > b.buffers.size();
    });
    for (Part& side : sides) {
      // What is left decides which buffers are hardest now, so each side
      // is ranked afresh; ranks change, so only the offset order carries on.
      std::vector<int64_t> key = state_.Key(side, candidate.offset, -1);
      if (failed_.Contains(key)) return Result::kInfeasible;
      side.rank =
          RankBuffers(state_.problem(), side.buffers, state_.remaining(), ordering_, round_);
      const Result result = Search(side, candidate.offset, -1, depth + 1);
      if (result == Result::kInfeasible) failed_.Insert(std::move(key));
      if (result != Result::kFound) return result;
    }
    return Result::kFound;
  }

  SearchState& state_;
  const int ordering_;
  const int round_;
  int64_t nodes_left_;
  const SearchClock::time_point deadline_;
  int64_t steps_left_;
  std::vector<int64_t>& solution_;
  int64_t nodes_ = 0;
  int64_t steps_ = 0;
  bool timed_out_ = false;
  std::vector<std::vector<Candidate>> candidates_;  // per depth, reused
  FailedParts failed_;
};

}  // namespace

SearchOutcome SearchPartition(const SearchProblem& problem, const Partition& partition,
                              int64_t capacity, const SearchBudget& budget,
                              std::vector<int64_t>* offsets, SearchStats* stats) {
  SearchState state(problem, capacity);
  state.Reset(partition);
  if (!state.SectionsFit(partition.lo, partition.hi, 0)) return SearchOutcome::kInfeasible;
  // Each round gives every ordering the same node limit; limits double
  // from round to round, so the total work is at most about twice that of
  // the last round.
  const int64_t first_limit = std::max<int64_t>(256, 4 * partition.buffers.size());
  int64_t steps_used = 0;  // this call's steps, against budget.max_steps
  for (int round = 0;; ++round) {
    const int64_t limit = first_limit << std::min(round, 40);
    for (int ordering = 0; ordering < NumOrderings(round); ++ordering) {
      Searcher searcher(&state, ordering, round, limit, budget.deadline,
                        budget.max_steps - steps_used, offsets);
      const Result result = searcher.Run(partition);
      stats->nodes += searcher.nodes();
      stats->steps += searcher.steps();
      steps_used += searcher.steps();
      ++stats->restarts;
      switch (result) {
        case Result::kFound:
          return SearchOutcome::kFound;
        case Result::kInfeasible:
          return SearchOutcome::kInfeasible;
        case Result::kTimeout:
          return SearchOutcome::kTimeout;
        case Result::kNodeLimit:
          break;
      }
    }
  }
}

}  // namespace memory
}  // namespace mace
