// Memory that lives as long as the engine: weights repacked for the fast
// kernels (GEMM panels, Winograd-transformed filters). Ops allocate from it
// in Prepare and keep the pointers; nothing is freed until the arena goes.
//
// It is kept apart from the planned arena of intermediates, which is reused
// on every run, and from the scratch buffer, which is reused by every op.
// Blocks are carved from large chunks, so hundreds of small packed tensors
// cost a handful of allocations and the memory report can give one number.
#ifndef MACE_RUNTIMES_CPU_PERSISTENT_ARENA_H_
#define MACE_RUNTIMES_CPU_PERSISTENT_ARENA_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "mace/utils/large_buffer.h"

namespace mace {

class PersistentArena {
 public:
  static constexpr int64_t kAlignment = 64;
  // The first chunks are 1 MiB; once the arena holds kSmallChunksBytes, a
  // chunk is one huge page (AllocateLargeBuffer), so a model with megabytes
  // of repacked weights reads them through few TLB entries (MobileNet v1's
  // 512- and 1024-channel 1x1 layers ran 2-4 % faster), while a small model
  // does not have a huge page's worth of memory backed for a few hundred KiB.
  static constexpr int64_t kChunkBytes = int64_t{1} << 20;
  static constexpr int64_t kSmallChunksBytes = 2 * kChunkBytes;
  // Chunks that end within the first kAdvisedEarlyBytes are advised as they
  // open even when the advice comes late (AdviseHugePages): the zoo's
  // smaller models (12-16 MiB of packed weights) were created faster on
  // huge pages, ResNet-18 (58 MiB) stalled on them.
  static constexpr int64_t kAdvisedEarlyBytes = int64_t{16} << 20;

  // `advise_as_opened`: whether chunks are marked for huge pages as they
  // open, or only by AdviseHugePages (see there; by default only then).
  explicit PersistentArena(bool advise_as_opened = !HugePagesLate())
      : advise_new_chunks_(advise_as_opened) {}
  PersistentArena(const PersistentArena&) = delete;
  PersistentArena& operator=(const PersistentArena&) = delete;

  // A zero-filled, 64-byte aligned block of `bytes`, or null if memory ran
  // out or `bytes` is negative. A zero-byte request gets a valid pointer.
  //
  // The block goes in the first chunk with room left, so blocks of mixed
  // sizes share chunks (two 1 MiB filters and their biases fill 2 MiB
  // chunks instead of leaving half of each empty, which huge pages would
  // back all the same). A block no chunk has room for opens a new chunk, of
  // its own size when it is larger than a chunk.
  void* Allocate(int64_t bytes) { return AllocateBlock(bytes, true); }

  // As Allocate, but the block holds whatever the memory held: for a packer
  // that writes every byte of it. Filling it first would touch every byte
  // twice (the kernel also zeroes fresh pages), which was a tenth of
  // ResNet-18's engine creation.
  void* AllocateUnfilled(int64_t bytes) { return AllocateBlock(bytes, false); }

  // Hands the chunks out again from their start, keeping them: for weights
  // packed again on every run (a filter computed at run time), so that the
  // same sequence of requests reuses the same memory. Every block handed
  // out before is invalid afterwards.
  void Reset() {
    for (Chunk& chunk : chunks_) chunk.used = 0;
    used_bytes_ = 0;
  }

  // Marks the chunks MADV_HUGEPAGE (AdviseHugePages), and every chunk
  // opened from now on when it is opened. Chunks are advised as they open
  // only with MACE_HUGE_PAGES=1: by default (or "late") they are huge-page
  // aligned but not marked until this is called, so the packers write them
  // on 4 KiB pages and the pages stay small until the kernel's khugepaged
  // merges them in the background. A fresh huge page is cleared whole at
  // its first touch, and on a virtual machine whose hypervisor has taken
  // free memory back that first touch has stalled engine creation by
  // 60-190 ms (ResNet-18's 58 MiB of packed weights); on 4 KiB pages
  // creation costs more CPU (15,000 faults instead of 1,700) but does not
  // stall. The CPU
  // runtime calls this before the first run.
  void AdviseHugePages() {
    advise_new_chunks_ = true;
    for (Chunk& chunk : chunks_) {
      if (!chunk.advised) mace::AdviseHugePages(chunk.base.get(), chunk.size);
      chunk.advised = true;
    }
  }
  bool huge_pages_advised() const { return advise_new_chunks_; }

  // Whether a block on 4 KiB pages (a chunk not advised yet, or too small
  // for a huge page, or huge pages off) is faulted in by one call as it is
  // handed out (PopulateForWrite) rather than a fault per page as the
  // packer writes it. For one thread: a packer on several threads takes its
  // faults on all of them at once, which one call on the allocating thread
  // would serialize.
  void set_populate_small_pages(bool populate) { populate_small_pages_ = populate; }

  // Bytes handed out (rounded to the alignment), and bytes held from the OS.
  int64_t used_bytes() const { return used_bytes_; }
  int64_t reserved_bytes() const { return reserved_bytes_; }

 private:
  void* AllocateBlock(int64_t bytes, bool zero) {
    if (bytes < 0) return nullptr;
    const int64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    for (Chunk& chunk : chunks_) {
      if (chunk.size - chunk.used >= rounded) return Take(&chunk, rounded, zero);
    }
    const int64_t chunk_bytes = reserved_bytes_ >= kSmallChunksBytes ? kHugePageBytes : kChunkBytes;
    const int64_t size = rounded > chunk_bytes ? rounded : chunk_bytes;
    const bool advise = advise_new_chunks_ || reserved_bytes_ + size <= kAdvisedEarlyBytes;
    void* base = AllocateLargeBuffer(size, kAlignment, advise);
    if (base == nullptr) return nullptr;
    chunks_.push_back(Chunk{std::unique_ptr<void, Free>(base), size, 0, advise});
    reserved_bytes_ += size;
    return Take(&chunks_.back(), rounded, zero);
  }

  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  struct Chunk {
    std::unique_ptr<void, Free> base;
    int64_t size = 0;
    int64_t used = 0;
    bool advised = false;  // given to AdviseHugePages (or allocated advised)
  };

  // The next `rounded` bytes of `chunk`, zero-filled if `zero`.
  void* Take(Chunk* chunk, int64_t rounded, bool zero) {
    void* block = static_cast<char*>(chunk->base.get()) + chunk->used;
    chunk->used += rounded;
    used_bytes_ += rounded;
    const bool small_pages =
        !chunk->advised || chunk->size < kHugePageBytes || !HugePagesEnabled();
    if (populate_small_pages_ && small_pages) PopulateForWrite(block, rounded);
    if (zero) std::memset(block, 0, static_cast<size_t>(rounded));
    return block;
  }

  std::vector<Chunk> chunks_;
  int64_t used_bytes_ = 0;
  int64_t reserved_bytes_ = 0;
  bool advise_new_chunks_;
  bool populate_small_pages_ = false;
};

// Floats derived from weights (packed panels, blocked filters): in an
// engine's persistent arena when one is given (so the memory report counts
// them), else in storage of their own, aligned and paged as the arena's
// (kernel tests and benchmarks then run on the memory the engine gives).
// Zero-filled unless allocated unfilled. Movable: a moved vector keeps its
// buffer, so the pointer stays valid.
class PersistentFloats {
 public:
  // Throws std::bad_alloc when memory ran out.
  void Allocate(int64_t count, PersistentArena* arena) { Allocate(count, arena, true); }
  // As Allocate, not zero-filled: the caller writes every float.
  void AllocateUnfilled(int64_t count, PersistentArena* arena) { Allocate(count, arena, false); }
  float* data() { return data_; }
  const float* data() const { return data_; }
  int64_t size() const { return size_; }
  float& operator[](int64_t i) { return data_[i]; }
  // Whether the floats are in an arena rather than own storage.
  bool in_arena() const { return data_ != nullptr && own_ == nullptr; }

 private:
  void Allocate(int64_t count, PersistentArena* arena, bool zero) {
    const int64_t bytes = std::max<int64_t>(count, 1) * int64_t{sizeof(float)};
    own_.reset();
    void* block = nullptr;
    if (arena != nullptr) block = zero ? arena->Allocate(bytes) : arena->AllocateUnfilled(bytes);
    if (block == nullptr) {
      own_.reset(AllocateLargeBuffer(bytes, PersistentArena::kAlignment));
      if (own_ == nullptr) throw std::bad_alloc();
      block = own_.get();
      if (zero) std::memset(block, 0, static_cast<size_t>(bytes));
    }
    data_ = static_cast<float*>(block);
    size_ = count;
  }

  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  float* data_ = nullptr;
  int64_t size_ = 0;
  std::unique_ptr<void, Free> own_;
};

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_PERSISTENT_ARENA_H_
