#include "mace/dsp/allocator.h"

namespace mace {
namespace dsp {

// Each block starts with a kAlignment-byte slot holding its Block record, so
// the pointer handed out stays vector aligned.
uint32_t Allocator::BlockBytes(uint32_t request) {
  const uint32_t rounded = (request + kAlignment - 1) & ~(kAlignment - 1);
  return rounded + kAlignment;
}

void Allocator::Init(void* base, uint32_t size) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(base);
  const uintptr_t aligned = (start + kAlignment - 1) & ~uintptr_t{kAlignment - 1};
  begin_ = reinterpret_cast<uint8_t*>(aligned);
  const uintptr_t end = (start + size) & ~uintptr_t{kAlignment - 1};
  end_ = end > aligned ? reinterpret_cast<uint8_t*>(end) : begin_;
  top_ = begin_;
  free_ = nullptr;
  used_ = peak_ = 0;
}

void* Allocator::Allocate(uint32_t size) {
  if (size == 0 || size > 0x7fffffffu - 2 * kAlignment) return nullptr;
  const uint32_t need = BlockBytes(size);
  Block* block = nullptr;
  for (Block** link = &free_; *link != nullptr; link = &(*link)->next) {
    Block* candidate = *link;
    if (candidate->size < need) continue;
    if (candidate->size - need >= 2 * kAlignment) {
      // Split: the tail stays free.
      Block* rest = reinterpret_cast<Block*>(reinterpret_cast<uint8_t*>(candidate) + need);
      rest->size = candidate->size - need;
      rest->next = candidate->next;
      candidate->size = need;
      *link = rest;
    } else {
      *link = candidate->next;
    }
    block = candidate;
    break;
  }
  if (block == nullptr) {
    if (static_cast<uint32_t>(end_ - top_) < need) return nullptr;
    block = reinterpret_cast<Block*>(top_);
    block->size = need;
    top_ += need;
  }
  block->next = nullptr;
  used_ += block->size;
  if (used_ > peak_) peak_ = used_;
  return reinterpret_cast<uint8_t*>(block) + kAlignment;
}

void Allocator::Free(void* pointer) {
  if (pointer == nullptr) return;
  Block* block = reinterpret_cast<Block*>(static_cast<uint8_t*>(pointer) - kAlignment);
  used_ -= block->size;
  // Insert in address order, then merge with the neighbours.
  Block* previous = nullptr;
  Block* next = free_;
  while (next != nullptr && next < block) {
    previous = next;
    next = next->next;
  }
  block->next = next;
  if (next != nullptr && reinterpret_cast<uint8_t*>(block) + block->size ==
                             reinterpret_cast<uint8_t*>(next)) {
    block->size += next->size;
    block->next = next->next;
  }
  if (previous != nullptr &&
      reinterpret_cast<uint8_t*>(previous) + previous->size == reinterpret_cast<uint8_t*>(block)) {
    previous->size += block->size;
    previous->next = block->next;
    block = previous;
  } else if (previous != nullptr) {
    previous->next = block;
  } else {
    free_ = block;
  }
  // A free block ending at the bump pointer goes back to the bump region.
  if (reinterpret_cast<uint8_t*>(block) + block->size == top_ && block->next == nullptr) {
    top_ = reinterpret_cast<uint8_t*>(block);
    if (previous == block || previous == nullptr) {
      // block is the first free block, or merged into `previous`: find its
      // predecessor again.
      Block** link = &free_;
      while (*link != block) link = &(*link)->next;
      *link = nullptr;
    } else {
      previous->next = nullptr;
    }
  }
}

bool Allocator::CheckConsistency() const {
  const Block* previous = nullptr;
  uint32_t free_bytes = 0;
  for (const Block* block = free_; block != nullptr; block = block->next) {
    const uint8_t* start = reinterpret_cast<const uint8_t*>(block);
    if (start < begin_ || start + block->size > top_) return false;
    if ((reinterpret_cast<uintptr_t>(start) - reinterpret_cast<uintptr_t>(begin_)) % kAlignment)
      return false;
    if (block->size < 2 * kAlignment || block->size % kAlignment) return false;
    if (previous != nullptr &&
        reinterpret_cast<const uint8_t*>(previous) + previous->size >= start)
      return false;  // out of order, overlapping or unmerged
    if (start + block->size == top_) return false;  // should be in the bump region
    free_bytes += block->size;
    previous = block;
  }
  return free_bytes + used_ == static_cast<uint32_t>(top_ - begin_);
}

}  // namespace dsp
}  // namespace mace
