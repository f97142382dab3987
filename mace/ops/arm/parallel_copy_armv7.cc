// CopyBytes (cpu/parallel_copy.h) on armv7: vld1/vst1 move at most four d
// registers (32 bytes), so a 64-byte step is two of each (6 instructions
// with the loop's); the ragged end is one more step overlapping the one
// before it, as on arm64 (arm/parallel_copy_aarch64.cc).
#include <cstring>

#include "mace/ops/cpu/parallel_copy.h"

namespace mace {
namespace ops {

void CopyBytes(void* dst, const void* src, int64_t bytes) {
  if (bytes >= 64) {
    int32_t steps = static_cast<int32_t>(bytes / 64);
    const char* from = static_cast<const char*>(src);
    char* to = static_cast<char*>(dst);
    __asm__ volatile(
        "1:\n"
        "vld1.8 {d0-d3}, [%[from]]!\n"
        "vld1.8 {d4-d7}, [%[from]]!\n"
        "subs %[steps], %[steps], #1\n"
        "vst1.8 {d0-d3}, [%[to]]!\n"
        "vst1.8 {d4-d7}, [%[to]]!\n"
        "bne 1b\n"
        : [from] "+r"(from), [to] "+r"(to), [steps] "+r"(steps)
        :
        : "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    if (bytes % 64 != 0) {
      const char* last_from = static_cast<const char*>(src) + bytes - 64;
      char* last_to = static_cast<char*>(dst) + bytes - 64;
      __asm__ volatile(
          "vld1.8 {d0-d3}, [%[from]]!\n"
          "vld1.8 {d4-d7}, [%[from]]\n"
          "vst1.8 {d0-d3}, [%[to]]!\n"
          "vst1.8 {d4-d7}, [%[to]]\n"
          : [from] "+r"(last_from), [to] "+r"(last_to)
          :
          : "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    }
    return;
  }
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
}

}  // namespace ops
}  // namespace mace
