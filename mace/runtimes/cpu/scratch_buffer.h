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

class ScratchBuffer {
 public:
  // Vector loads are fastest on cache-line aligned data.
  static constexpr int64_t kAlignment = 64;

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
