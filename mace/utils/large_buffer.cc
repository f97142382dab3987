#include "mace/utils/large_buffer.h"

#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace mace {

bool HugePagesEnabled() {
  static const bool enabled = [] {
    const char* setting = std::getenv("MACE_HUGE_PAGES");
    return setting == nullptr || std::strcmp(setting, "0") != 0;
  }();
  return enabled;
}

void* AllocateLargeBuffer(int64_t bytes, int64_t alignment) {
  if (bytes <= 0) return nullptr;
  const bool huge = bytes >= kHugePageBytes && HugePagesEnabled();
  if (huge && alignment < kHugePageBytes) alignment = kHugePageBytes;
  void* pointer = nullptr;
  if (posix_memalign(&pointer, static_cast<size_t>(alignment), static_cast<size_t>(bytes)) != 0) {
    return nullptr;
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (huge) {
    // Advice only: a kernel without transparent huge pages says EINVAL and
    // the buffer stays on normal pages.
    madvise(pointer, static_cast<size_t>(bytes / kHugePageBytes * kHugePageBytes), MADV_HUGEPAGE);
  }
#endif
  return pointer;
}

}  // namespace mace
