#include "mace/core/memory/simple_arena.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {
namespace {

bool IsPowerOfTwo(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

}  // namespace

SimpleArena::SimpleArena(size_t arena_alignment) : arena_alignment_(arena_alignment) {}

Status SimpleArena::Allocate(size_t alignment, size_t size, ArenaAllocation* allocation) {
  // The base is aligned to arena_alignment_, so an offset aligned to a
  // smaller power of two gives an equally aligned address.
  if (!IsPowerOfTwo(arena_alignment_) || arena_alignment_ > kMaxAlignment) {
    return Status::Error("arena alignment must be a power of two in [1, " +
                         std::to_string(kMaxAlignment) + "], got " +
                         std::to_string(arena_alignment_));
  }
  if (!IsPowerOfTwo(alignment) || alignment > arena_alignment_) {
    return Status::Error("alignment must be a power of two no larger than the arena's " +
                         std::to_string(arena_alignment_) + ", got " + std::to_string(alignment));
  }
  if (size > kMaxTensorSize) {
    return Status::Error("allocation of " + std::to_string(size) + " bytes exceeds " +
                         std::to_string(kMaxTensorSize));
  }
  *allocation = ArenaAllocation();
  if (size == 0) return Status();

  // Walk the live allocations by offset; `end` is where the previous one
  // stops, so [AlignUp(end), next.offset) is a free gap.
  size_t end = 0;
  auto insert_at = allocations_.end();
  size_t offset = 0;
  bool found = false;
  for (auto it = allocations_.begin(); it != allocations_.end(); ++it) {
    const size_t candidate = AlignUp(end, alignment);
    if (candidate + size <= it->offset) {
      offset = candidate;
      insert_at = it;
      found = true;
      break;
    }
    end = std::max(end, it->offset + it->size);
  }
  if (!found) offset = AlignUp(end, alignment);
  allocation->offset = offset;
  allocation->size = size;
  allocations_.insert(insert_at, *allocation);
  // A committed buffer stays valid for everything below its size;
  // ResolveAlloc refuses the rest until the next Commit.
  high_water_mark_ = std::max(high_water_mark_, offset + size);
  return Status();
}

Status SimpleArena::Deallocate(const ArenaAllocation& allocation) {
  if (allocation.size == 0) return Status();
  auto it = std::find(allocations_.begin(), allocations_.end(), allocation);
  if (it == allocations_.end()) {
    return Status::Error("no live allocation at offset " + std::to_string(allocation.offset) +
                         " with size " + std::to_string(allocation.size));
  }
  allocations_.erase(it);
  return Status();
}

Status SimpleArena::Commit() {
  if (!IsPowerOfTwo(arena_alignment_) || arena_alignment_ > kMaxAlignment) {
    return Status::Error("arena alignment must be a power of two, got " +
                         std::to_string(arena_alignment_));
  }
  if (high_water_mark_ > aligned_size_) {
    // Room to slide the base up to the next aligned address.
    const size_t required = high_water_mark_ + arena_alignment_ - 1;
    std::unique_ptr<char[]> buffer(new (std::nothrow) char[required]);
    if (buffer == nullptr) {
      return Status::Error("cannot allocate an arena of " + std::to_string(required) + " bytes");
    }
    const uintptr_t address = reinterpret_cast<uintptr_t>(buffer.get());
    char* aligned = buffer.get() + (AlignUp(address, arena_alignment_) - address);
    // Tensors that live across a re-plan (e.g. preserved inputs) keep their
    // bytes, as long as their offsets did not change.
    if (aligned_size_ > 0) std::memcpy(aligned, aligned_base_, aligned_size_);
    buffer_ = std::move(buffer);
    aligned_base_ = aligned;
    aligned_size_ = high_water_mark_;
  }
  committed_ = true;
  return Status();
}

Status SimpleArena::ResolveAlloc(const ArenaAllocation& allocation, char** pointer) const {
  *pointer = nullptr;
  if (allocation.size == 0) return Status();
  if (!committed_) return Status::Error("the arena must be committed before resolving");
  if (allocation.offset > aligned_size_ || allocation.size > aligned_size_ - allocation.offset) {
    return Status::Error("allocation [" + std::to_string(allocation.offset) + ", +" +
                         std::to_string(allocation.size) + ") is outside the arena of " +
                         std::to_string(aligned_size_) + " bytes");
  }
  *pointer = aligned_base_ + allocation.offset;
  return Status();
}

void SimpleArena::ClearPlan() {
  allocations_.clear();
  high_water_mark_ = 0;
  committed_ = false;
}

void SimpleArena::ReleaseBuffer() {
  buffer_.reset();
  aligned_base_ = nullptr;
  aligned_size_ = 0;
  committed_ = false;
}

}  // namespace memory
}  // namespace mace
