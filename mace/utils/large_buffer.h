// Heap memory for large buffers that live as long as an engine: the planned
// arena of intermediates and the weights repacked for the fast kernels.
//
// Such buffers span megabytes and are swept once per inference, so on 4 KiB
// pages every 4 KiB costs a TLB miss and the hardware prefetchers restart at
// every page. A buffer of at least one huge page is therefore aligned to a
// huge page (2 MiB) and, on Linux and Android, marked MADV_HUGEPAGE, which
// lets a kernel with transparent huge pages in "madvise" or "always" mode back
// it with huge pages. Only the whole huge pages inside the buffer are marked,
// so no memory beyond the buffer is ever backed for it. Where the kernel has
// no transparent huge pages the advice is refused and ignored.
//
// MACE_HUGE_PAGES=0 in the environment turns the advice off (read once).
// The packed weights get it after they are written rather than as they are
// allocated (see PersistentArena); MACE_HUGE_PAGES=1 advises them as they
// are allocated too.
#ifndef MACE_UTILS_LARGE_BUFFER_H_
#define MACE_UTILS_LARGE_BUFFER_H_

#include <cstdint>

namespace mace {

constexpr int64_t kHugePageBytes = int64_t{2} << 20;

// Whether large buffers ask for huge pages (MACE_HUGE_PAGES is not "0").
bool HugePagesEnabled();
// Whether the packed weights are advised after packing: MACE_HUGE_PAGES
// unset or "late", not "0" or "1" (read once).
bool HugePagesLate();

// `bytes` (> 0) aligned to `alignment` (a power of two, at least
// sizeof(void*)), or to a huge page when huge pages are enabled and bytes is
// at least one; null when memory ran out. The memory is not cleared. Free it
// with std::free.
//
// With `advise` false the buffer is aligned all the same but marked
// MADV_NOHUGEPAGE instead: the caller writes it first on normal pages and
// marks it later with AdviseHugePages (see the persistent arena).
void* AllocateLargeBuffer(int64_t bytes, int64_t alignment, bool advise = true);

// Marks the whole huge pages inside [pointer, pointer + bytes)
// MADV_HUGEPAGE when huge pages are enabled. Pages already resident stay
// as they are; the kernel's khugepaged may later merge them into huge
// pages in the background. True when the advice was given and taken.
bool AdviseHugePages(void* pointer, int64_t bytes);

// Faults in the pages that hold [pointer, pointer + bytes) for writing in
// one call (MADV_POPULATE_WRITE): cheaper than a page fault per 4 KiB page
// at first touch. The memory keeps its contents (fresh pages come zeroed).
// False where the advice does not fault pages in (tried once on a fresh
// page: kernels before 5.14 refuse it, qemu's user mode accepts it and does
// nothing) and elsewhere than Linux; pages then fault in at first touch.
bool PopulateForWrite(void* pointer, int64_t bytes);

// Linux: whether the mapping that holds `address` is marked MADV_HUGEPAGE
// (its VmFlags in /proc/self/smaps include "hg"). False where that cannot
// be read. For tests and diagnostics: it reads a file.
bool HugePagesAdvisedAt(const void* address);

// Zeroed memory of `bytes` (> 0), 64-byte aligned (huge-page aligned and
// advised like AllocateLargeBuffer from one huge page up); null when memory
// ran out. From kZeroedMapBytes up it is a private anonymous mapping of its
// own, which the kernel fills with zeros page by page on first touch, so
// the allocation writes nothing: an arena of intermediates costs its page
// faults in the first inference that uses it instead of a memset at engine
// creation (on a virtual machine a fresh page can cost microseconds). Below
// that it is heap memory cleared with memset. Free it with
// FreeZeroedBuffer and the same size.
constexpr int64_t kZeroedMapBytes = int64_t{256} << 10;
void* AllocateZeroedBuffer(int64_t bytes);
void FreeZeroedBuffer(void* pointer, int64_t bytes);

}  // namespace mace

#endif  // MACE_UTILS_LARGE_BUFFER_H_
