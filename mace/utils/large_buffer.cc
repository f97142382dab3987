#include "mace/utils/large_buffer.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mace/utils/debug_overrides.h"

#if defined(__linux__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#define MACE_ZEROED_BY_MMAP 1
#endif

namespace mace {

bool HugePagesEnabled() {
  static const bool enabled = [] {
    return DebugOverrideOn(DebugOverride::kHugePages);
  }();
  return enabled;
}

bool HugePagesLate() {
  // "1" keeps the advice as the memory is allocated; "0" turns it off (then
  // nothing is advised late either); anything else, unset included, is late.
  static const bool late = [] {
    const char* setting = DebugOverrideValue(DebugOverride::kHugePages);
    return setting == nullptr ||
           (std::strcmp(setting, "1") != 0 && std::strcmp(setting, "0") != 0);
  }();
  return late;
}

namespace {

// Gives `huge` (MADV_HUGEPAGE) or not (MADV_NOHUGEPAGE) for the whole huge
// pages inside [pointer, pointer + bytes).
bool AdviseWholeHugePages(void* pointer, int64_t bytes, bool huge) {
  if (pointer == nullptr || bytes < kHugePageBytes || !HugePagesEnabled()) return false;
  const uintptr_t start = reinterpret_cast<uintptr_t>(pointer);
  const uintptr_t first = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const uintptr_t end = (start + static_cast<uintptr_t>(bytes)) / kHugePageBytes * kHugePageBytes;
  if (end <= first) return false;
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  // Advice only: a kernel without transparent huge pages says EINVAL and
  // the buffer stays on normal pages.
  return madvise(reinterpret_cast<void*>(first), end - first,
                 huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0;
#else
  return false;
#endif
}

}  // namespace

bool AdviseHugePages(void* pointer, int64_t bytes) {
  return AdviseWholeHugePages(pointer, bytes, true);
}

#if defined(__linux__)
namespace {

// Not in older kernel headers; kernels before 5.14 refuse it (EINVAL).
constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE

uintptr_t PageBytes() {
  const long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<uintptr_t>(size) : 4096;
}

// Whether the advice really faults pages in here, tried once on a fresh
// page: some environments (qemu's user mode) accept any advice and do
// nothing, and older kernels refuse it.
bool PopulateTakesEffect() {
  static const bool works = [] {
    const size_t page = PageBytes();
    void* map = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return false;
    unsigned char resident = 0;
    const bool taken = madvise(map, page, kPopulateWrite) == 0 &&
                       mincore(map, page, &resident) == 0 && (resident & 1) != 0;
    munmap(map, page);
    return taken;
  }();
  return works;
}

}  // namespace
#endif

bool PopulateForWrite(void* pointer, int64_t bytes) {
#if defined(__linux__)
  if (pointer == nullptr || bytes <= 0 || !PopulateTakesEffect()) return false;
  const uintptr_t page = PageBytes();
  const uintptr_t start = reinterpret_cast<uintptr_t>(pointer) / page * page;
  const uintptr_t end =
      (reinterpret_cast<uintptr_t>(pointer) + static_cast<uintptr_t>(bytes) + page - 1) / page *
      page;
  return madvise(reinterpret_cast<void*>(start), end - start, kPopulateWrite) == 0;
#else
  (void)pointer;
  (void)bytes;
  return false;
#endif
}

bool HugePagesAdvisedAt(const void* address) {
  const uintptr_t target = reinterpret_cast<uintptr_t>(address);
  std::FILE* smaps = std::fopen("/proc/self/smaps", "r");
  if (smaps == nullptr) return false;
  char* line = nullptr;
  size_t capacity = 0;
  bool inside = false, advised = false;
  while (getline(&line, &capacity, smaps) >= 0) {
    // A mapping's header is "start-end perms ...", in hex; its fields follow.
    uintmax_t start = 0, end = 0;
    char dash = 0;
    if (std::sscanf(line, "%jx %c%jx", &start, &dash, &end) == 3 && dash == '-') {
      inside = start <= target && target < end;
      continue;
    }
    if (inside && std::strncmp(line, "VmFlags:", 8) == 0) {
      // Two-letter flags separated by spaces; "hg" is "huge page advised".
      for (const char* flag = line + 8; *flag != '\0';) {
        while (*flag != '\0' && std::isspace(static_cast<unsigned char>(*flag))) ++flag;
        const char* flag_end = flag;
        while (*flag_end != '\0' && !std::isspace(static_cast<unsigned char>(*flag_end))) {
          ++flag_end;
        }
        if (flag_end - flag == 2 && flag[0] == 'h' && flag[1] == 'g') advised = true;
        flag = flag_end;
      }
      break;
    }
  }
  std::free(line);
  std::fclose(smaps);
  return advised;
}

void* AllocateLargeBuffer(int64_t bytes, int64_t alignment, bool advise) {
  if (bytes <= 0) return nullptr;
  const bool huge = bytes >= kHugePageBytes && HugePagesEnabled();
  if (huge && alignment < kHugePageBytes) alignment = kHugePageBytes;
  void* pointer = nullptr;
  if (posix_memalign(&pointer, static_cast<size_t>(alignment), static_cast<size_t>(bytes)) != 0) {
    return nullptr;
  }
  // Not advised yet: explicitly on normal pages (also where transparent
  // huge pages are "always", and over heap memory that an earlier buffer
  // had advised).
  if (huge) AdviseWholeHugePages(pointer, bytes, advise);
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
    if (huge) AdviseHugePages(pointer, bytes);
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
