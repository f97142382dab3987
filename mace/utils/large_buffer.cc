#include "mace/utils/large_buffer.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__linux__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#define MACE_ZEROED_BY_MMAP 1
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

#if defined(MACE_ZEROED_BY_MMAP)
namespace {

size_t PageRounded(int64_t bytes) {
  static const size_t page = [] {
    const long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<size_t>(size) : size_t{4096};
  }();
  return (static_cast<size_t>(bytes) + page - 1) / page * page;
}

// A fresh anonymous mapping of `length` bytes (a multiple of the page size)
// that starts on a multiple of `alignment` (a multiple of the page size):
// `alignment` more is mapped and the ends outside the aligned range are
// unmapped again.
void* MapAligned(size_t length, size_t alignment) {
  const size_t padded = length + alignment;
  void* raw = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + alignment - 1) / alignment * alignment;
  const size_t head = aligned - start;
  const size_t tail = padded - head - length;
  if (head > 0) munmap(raw, head);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + length), tail);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace
#endif

void* AllocateZeroedBuffer(int64_t bytes) {
  if (bytes <= 0) return nullptr;
#if defined(MACE_ZEROED_BY_MMAP)
  if (bytes >= kZeroedMapBytes) {
    const bool huge = bytes >= kHugePageBytes && HugePagesEnabled();
    const size_t length = PageRounded(bytes);
    void* pointer = MapAligned(length, huge ? static_cast<size_t>(kHugePageBytes) : PageRounded(1));
#if defined(MADV_HUGEPAGE)
    if (pointer != nullptr && huge) {
      madvise(pointer, static_cast<size_t>(bytes / kHugePageBytes * kHugePageBytes), MADV_HUGEPAGE);
    }
#endif
    return pointer;
  }
#endif
  void* pointer = AllocateLargeBuffer(bytes, 64);
  if (pointer != nullptr) std::memset(pointer, 0, static_cast<size_t>(bytes));
  return pointer;
}

void FreeZeroedBuffer(void* pointer, int64_t bytes) {
  if (pointer == nullptr) return;
#if defined(MACE_ZEROED_BY_MMAP)
  if (bytes >= kZeroedMapBytes) {
    munmap(pointer, PageRounded(bytes));
    return;
  }
#endif
  std::free(pointer);
}

}  // namespace mace
