// An online arena in the style of TFLite's SimpleMemoryArena. Unlike the
// planners, it sees allocations one at a time, in execution order, and
// decides each offset immediately:
//
//   SimpleArena arena(/*arena_alignment=*/64);
//   ArenaAllocation a, b;
//   arena.Allocate(32, 2047, &a);   // {0, 2047}
//   arena.Allocate(32, 1000, &b);   // {2048, 1000}
//   arena.Deallocate(a);            // the gap [0, 2048) can be reused
//   arena.Commit();                 // one buffer of high_water_mark() bytes
//   char* p = nullptr;
//   arena.ResolveAlloc(b, &p);
//
// The plan (the list of live allocations and the high-water mark) is separate
// from the buffer, so a plan can be cleared and rebuilt for new shapes while
// the buffer is kept and only grown when the new plan needs more.
#ifndef MACE_CORE_MEMORY_SIMPLE_ARENA_H_
#define MACE_CORE_MEMORY_SIMPLE_ARENA_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "mace/core/memory/status.h"

namespace mace {
namespace memory {

constexpr size_t kDefaultArenaAlignment = 64;

struct ArenaAllocation {
  size_t offset = 0;
  size_t size = 0;
  bool operator==(const ArenaAllocation& other) const {
    return offset == other.offset && size == other.size;
  }
};

class SimpleArena {
 public:
  // `arena_alignment` (a power of two) aligns the buffer's base address, so
  // it bounds the alignment any single allocation may ask for.
  explicit SimpleArena(size_t arena_alignment = kDefaultArenaAlignment);

  // First fit: the lowest gap between live allocations that holds `size`
  // bytes at an offset aligned to `alignment`, else the aligned top. A
  // zero-size request gets {0, 0} and occupies nothing.
  Status Allocate(size_t alignment, size_t size, ArenaAllocation* allocation);
  // Frees a live allocation so later ones can reuse its bytes.
  Status Deallocate(const ArenaAllocation& allocation);

  // Makes the buffer hold high_water_mark() bytes at an aligned address.
  // A larger buffer replaces a smaller one and keeps its contents.
  Status Commit();
  // The address of `allocation` in the committed buffer; null for size 0.
  Status ResolveAlloc(const ArenaAllocation& allocation, char** pointer) const;

  // Forgets every allocation and the high-water mark; keeps the buffer.
  void ClearPlan();
  // Frees the buffer; the plan stays.
  void ReleaseBuffer();

  size_t high_water_mark() const { return high_water_mark_; }
  size_t arena_alignment() const { return arena_alignment_; }
  bool committed() const { return committed_; }
  // Usable bytes behind the aligned base of the current buffer.
  size_t buffer_size() const { return aligned_size_; }
  // Live allocations by offset.
  const std::vector<ArenaAllocation>& allocations() const { return allocations_; }

 private:
  size_t arena_alignment_;
  size_t high_water_mark_ = 0;
  bool committed_ = false;
  std::vector<ArenaAllocation> allocations_;  // sorted by offset
  std::unique_ptr<char[]> buffer_;
  char* aligned_base_ = nullptr;
  size_t aligned_size_ = 0;
};

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_SIMPLE_ARENA_H_
