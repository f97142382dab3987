// Scratch memory shared by the CPU ops of one net.
//
// Ops run one at a time, so one buffer serves them all: each op reserves the
// bytes it needs in Prepare (where allocation is allowed) and takes the
// pointer in Run. The pointer may move while ops are still being prepared, so
// ops must not keep it across calls.
#ifndef MACE_RUNTIMES_CPU_SCRATCH_BUFFER_H_
#define MACE_RUNTIMES_CPU_SCRATCH_BUFFER_H_

#include <cstdint>
#include <cstdlib>

namespace mace {

// Threads that write scratch split it into one region each. A region must
// not share even a neighbouring line with another thread's: cores fetch the
// aligned 128-byte pair of a missed line (x86, and some ARM cores), and the
// next line after ones read in order, so a thread writing its region's last
// line keeps pulling the next region's first line away from the thread that
// writes it. Regions therefore start on 128-byte boundaries and end with a
// 128-byte guard that no inner loop writes. Measured on a 2-thread max pool
// over 256 channels of 27x27, whose regions are one 128-byte row each: 87 us
// with regions 64 or 128 bytes apart (one thread took 55 us), 40 us with the
// guard.
constexpr int64_t kThreadRegionBytes = 128;

// A region of `floats`: whole 128-byte units, plus the guard unit.
inline int64_t ThreadRegionFloats(int64_t floats) {
  constexpr int64_t kUnitFloats = kThreadRegionBytes / sizeof(float);
  return (floats + kUnitFloats - 1) / kUnitFloats * kUnitFloats + kUnitFloats;
}

class ScratchBuffer {
 public:
  // Vector loads are fastest on cache-line aligned data, and per-thread
  // regions start on a boundary of their own (kThreadRegionBytes).
  static constexpr int64_t kAlignment = kThreadRegionBytes;

  ScratchBuffer() = default;
  ~ScratchBuffer() { std::free(data_); }
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;

  // Grows to at least `bytes`; false if memory ran out. Old contents are not
  // kept: scratch never carries data from one op to the next.
  bool Reserve(int64_t bytes) {
    if (bytes <= size_) return true;
    const int64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void* grown = std::aligned_alloc(kAlignment, static_cast<size_t>(rounded));
    if (grown == nullptr) return false;
    std::free(data_);
    data_ = grown;
    size_ = rounded;
    return true;
  }

  void* data() { return data_; }
  int64_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_SCRATCH_BUFFER_H_
