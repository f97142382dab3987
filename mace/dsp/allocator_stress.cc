#include "mace/dsp/self_test.h"

namespace mace {
namespace dsp {
namespace {

// A small deterministic generator (xorshift32).
uint32_t Next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

}  // namespace

uint32_t AllocatorStress(uint8_t* memory, uint32_t size, Text* error) {
  constexpr uint32_t kSlots = 64;
  Allocator heap;
  heap.Init(memory, size);
  uint8_t* blocks[kSlots] = {};
  uint32_t sizes[kSlots] = {};
  uint32_t failures = 0, state = 12345;
  auto fail = [&](const char* what, uint32_t step) {
    if (failures++ < 4) *error << what << " at step " << step << "\n";
  };
  if (heap.Allocate(0) != nullptr) fail("zero-byte allocation succeeded", 0);
  if (heap.Allocate(size) != nullptr) fail("oversized allocation succeeded", 0);
  for (uint32_t step = 0; step < 2000; ++step) {
    const uint32_t slot = Next(&state) % kSlots;
    if (blocks[slot] != nullptr) {
      for (uint32_t i = 0; i < sizes[slot]; ++i) {
        if (blocks[slot][i] != static_cast<uint8_t>(slot + i)) {
          fail("block contents changed", step);
          break;
        }
      }
      heap.Free(blocks[slot]);
      blocks[slot] = nullptr;
    } else {
      const uint32_t want = 1 + Next(&state) % 3000;
      uint8_t* block = static_cast<uint8_t*>(heap.Allocate(want));
      if (block == nullptr) continue;  // full: allowed
      if (reinterpret_cast<uintptr_t>(block) % Allocator::kAlignment != 0)
        fail("misaligned block", step);
      for (uint32_t i = 0; i < want; ++i) block[i] = static_cast<uint8_t>(slot + i);
      blocks[slot] = block;
      sizes[slot] = want;
    }
    if (!heap.CheckConsistency()) fail("free list inconsistent", step);
  }
  for (uint32_t slot = 0; slot < kSlots; ++slot) heap.Free(blocks[slot]);
  if (heap.used_bytes() != 0) fail("bytes still in use after freeing all", 2000);
  if (!heap.CheckConsistency()) fail("free list inconsistent at the end", 2000);
  // Everything returned: the whole region is available again.
  void* all = heap.Allocate(heap.capacity() - Allocator::kAlignment);
  if (all == nullptr) fail("region not whole after freeing all", 2000);
  return failures;
}

}  // namespace dsp
}  // namespace mace
