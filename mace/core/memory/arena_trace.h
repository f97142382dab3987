// Replays an allocation trace on a SimpleArena, for tools/mace_plan:
//
//   # comment
//   alloc ID ALIGNMENT SIZE
//   free ID
//
// IDs are any tokens without whitespace. Each ID is allocated once and freed
// at most once, after its allocation.
#ifndef MACE_CORE_MEMORY_ARENA_TRACE_H_
#define MACE_CORE_MEMORY_ARENA_TRACE_H_

#include <string>
#include <utility>
#include <vector>

#include "mace/core/memory/status.h"

namespace mace {
namespace memory {

struct ArenaTraceResult {
  // (ID, offset) in allocation order.
  std::vector<std::pair<std::string, size_t>> offsets;
  size_t high_water_mark = 0;
};

// `file_name` only labels error messages ("trace.txt:3: ...").
Status RunArenaTrace(const std::string& text, const std::string& file_name, size_t arena_alignment,
                     ArenaTraceResult* result);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_ARENA_TRACE_H_
