// Static buffer orderings for the exact offset search. The rank decides
// which of several buffers at the same offset is tried first, and the
// canonical order among them. Buffers that are hardest to place go first.
#ifndef MACE_CORE_MEMORY_SEARCH_ORDER_H_
#define MACE_CORE_MEMORY_SEARCH_ORDER_H_

#include <vector>

#include "mace/core/memory/search_problem.h"

namespace mace {
namespace memory {

// How many orderings take turns in restart round `round`.
int NumOrderings(int round);

// rank[b] for `buffers` (others are 0). `section_bytes[s]` is what is
// left to place in section s. Ordering 0 is MiniMalloc's default: largest
// section total, then longest lifetime, then largest area. Later orderings
// permute the keys or perturb them with a fixed-seed generator, so every
// run is reproducible.
std::vector<int> RankBuffers(const SearchProblem& problem, const std::vector<int>& buffers,
                             const std::vector<int64_t>& section_bytes, int ordering, int round);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_SEARCH_ORDER_H_
