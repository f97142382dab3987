// Cache-sized blocks of the CPU kernels, derived from the cache sizes.
//
// Each block is meant to stay in one cache level while a kernel reuses it.
// The rules below are pure functions of the sizes; the shares of each cache
// were fitted on a 48 KiB L1d / 2 MiB L2 core (Sapphire Rapids class), where
// they give the sizes measured best there, and carry over to 32 KiB / 1 MiB
// (Cascade Lake class) and AMD Zen (32 KiB / 512 KiB-1 MiB) parts. The
// channel-blocked kernels keep fixed parts (see docs/design/cpu_runtime.md).
#ifndef MACE_OPS_CPU_CACHE_BLOCKS_H_
#define MACE_OPS_CPU_CACHE_BLOCKS_H_

#include <cstdint>

#include "mace/runtimes/cpu/cpu_features.h"

namespace mace {
namespace ops {

// The core the fixed blocks were measured on (Sapphire Rapids class).
constexpr CacheSizes kReferenceCaches = {int64_t{48} << 10, int64_t{2} << 20, int64_t{105} << 20};

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

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CACHE_BLOCKS_H_
