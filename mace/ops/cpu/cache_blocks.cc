#include "mace/ops/cpu/cache_blocks.h"

#include <algorithm>

namespace mace {
namespace ops {
namespace {

constexpr int64_t kMaxKc = 256;
constexpr int64_t kMaxReductionPart = 128;

int64_t RoundDownTo(int64_t value, int64_t step) { return value / step * step; }

}  // namespace

CacheSizes CachesFor(const KernelTable& table) {
  if (table.isa == KernelIsa::kAvx2Fma || table.isa == KernelIsa::kAvx512) {
    return HostCacheSizes();
  }
  return kReferenceCaches;
}

GemmBlocks DeriveGemmBlocks(int mr, int nr, const CacheSizes& caches) {
  const int64_t floats_l1 = caches.l1d / static_cast<int64_t>(sizeof(float));
  const int64_t floats_l2 = caches.l2 / static_cast<int64_t>(sizeof(float));
  // kc in steps of 8: whole cache lines of a packed panel's rows.
  constexpr int64_t kKcStep = 8;
  const int64_t kc = std::clamp(RoundDownTo(floats_l1 * 2 / 3 / nr, kKcStep), kKcStep, kMaxKc);
  const int64_t mc = std::max<int64_t>(mr, RoundDownTo(floats_l2 / 6 / kc, mr));
  const int64_t nc = std::max<int64_t>(nr, RoundDownTo(floats_l2 / 4 / kc, nr));
  GemmBlocks blocks;
  blocks.mc = static_cast<int>(std::min<int64_t>(mc, 1 << 16));
  blocks.kc = static_cast<int>(kc);
  blocks.nc = static_cast<int>(std::min<int64_t>(nc, 1 << 16));
  return blocks;
}

int64_t ReductionPartChannels(const CacheSizes& caches, int64_t blocks, int64_t block,
                              int64_t channels) {
  block = std::max<int64_t>(block, 1);
  const int64_t most = std::max(block, kMaxReductionPart);
  if (channels <= most) return std::max<int64_t>(channels, 1);
  const int64_t channel_bytes = std::max<int64_t>(blocks, 1) * block * sizeof(float);
  const int64_t part = RoundDownTo(caches.l1d * 3 / 4 / channel_bytes, block);
  return std::clamp(part, block, most);
}

int64_t WindowPartBytes(const CacheSizes& caches) { return caches.l1d * 5 / 6; }

int64_t L2Share(const CacheSizes& caches, int64_t numerator, int64_t denominator) {
  return caches.l2 * numerator / denominator;
}

}  // namespace ops
}  // namespace mace
