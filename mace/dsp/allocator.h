// The DSP runtime's heap: a first-fit free list over one region, with a
// bump pointer for memory never handed out yet. Blocks are 128-byte aligned
// (one HVX vector), freed blocks merge with free neighbours, and a free
// block at the top returns to the bump region. Portable C++ with no library
// calls, so the same code is tested on the host.
#ifndef MACE_DSP_ALLOCATOR_H_
#define MACE_DSP_ALLOCATOR_H_

#include <stddef.h>
#include <stdint.h>

namespace mace {
namespace dsp {

class Allocator {
 public:
  static constexpr uint32_t kAlignment = 128;

  // Manages [base, base + size), shrunk to whole kAlignment units.
  void Init(void* base, uint32_t size);
  // Null when the request does not fit (or is zero bytes).
  void* Allocate(uint32_t size);
  // Null is ignored.
  void Free(void* pointer);

  uint32_t used_bytes() const { return used_; }
  uint32_t peak_bytes() const { return peak_; }
  uint32_t capacity() const { return static_cast<uint32_t>(end_ - begin_); }
  // Walks the free list and checks its invariants (order, alignment, no
  // touching neighbours, sizes within the region); for tests.
  bool CheckConsistency() const;

 private:
  struct Block {
    uint32_t size;  // bytes including this header's slot
    Block* next;    // free list only, ordered by address
  };
  static uint32_t BlockBytes(uint32_t request);

  uint8_t* begin_ = nullptr;
  uint8_t* top_ = nullptr;  // bump pointer
  uint8_t* end_ = nullptr;
  Block* free_ = nullptr;
  uint32_t used_ = 0, peak_ = 0;
};

}  // namespace dsp
}  // namespace mace

#endif  // MACE_DSP_ALLOCATOR_H_
