// Cache-sized blocks of the CPU kernels, derived from the cache sizes.
//
// Each block is meant to stay in one cache level while a kernel reuses it.
// The rules below are pure functions of the sizes; the shares of each cache
// were fitted on a 48 KiB L1d / 2 MiB L2 core (Sapphire Rapids class), where
// they give the sizes measured best there, and carry over to 32 KiB / 1 MiB
// (Cascade Lake class) and AMD Zen (32 KiB / 512 KiB-1 MiB) parts.
#ifndef MACE_OPS_CPU_CACHE_BLOCKS_H_
#define MACE_OPS_CPU_CACHE_BLOCKS_H_

#include <cstdint>

#include "mace/ops/cpu/kernel_table.h"
#include "mace/runtimes/cpu/cpu_features.h"

namespace mace {
namespace ops {

// The core the fixed blocks were measured on, and the sizes kernels that do
// not derive theirs (NEON, whose counts under qemu see no cache) assume.
constexpr CacheSizes kReferenceCaches = {int64_t{48} << 10, int64_t{2} << 20, int64_t{105} << 20};

// The caches `table`'s kernels size their blocks for: the host's
// (HostCacheSizes) for the x86 families, kReferenceCaches otherwise.
CacheSizes CachesFor(const KernelTable& table);

struct GemmBlocks {
  int mc = 0, kc = 0, nc = 0;
};

// The GEMM's blocks for an mr x nr micro-tile: a kc x nr B micro-panel in
// two thirds of L1d (the A micro-panels and C tile stream past it), an
// mc x kc A block in a sixth of L2 and a kc x nc B block in a quarter of it,
// both staying there across the loops that reuse them. kc is at most 256
// (longer reductions gain nothing measurable and some drivers treat kc as
// "one pass"), mc a multiple of mr, nc of nr; none below one micro-tile's
// worth.
GemmBlocks DeriveGemmBlocks(int mr, int nr, const CacheSizes& caches);

// Input channels per part of a channel-blocked 1x1 reduction of `channels`
// (the blocked convolution, the fused depthwise + 1x1, Winograd's
// products): the weights of `blocks` output blocks of `block` lanes over a
// part stay in three quarters of L1d across a task's position tiles. A
// multiple of `block`, from one block up to 128 channels (beyond that the
// parts' accumulation passes are already negligible). A reduction of at
// most 128 channels stays whole: on a 32 KiB L1d, MobileNet v1's 128 -> 128
// layer on 56x56 ran 3-8 % slower in two parts, where its deeper layers ran
// 3-5 % faster in parts of 96.
int64_t ReductionPartChannels(const CacheSizes& caches, int64_t blocks, int64_t block,
                              int64_t channels);

// Weight bytes per part of a channel-blocked window's reduction: a little
// under L1d (five sixths).
int64_t WindowPartBytes(const CacheSizes& caches);

// `numerator` / `denominator` of L2, for blocks that share it.
int64_t L2Share(const CacheSizes& caches, int64_t numerator, int64_t denominator);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CACHE_BLOCKS_H_
