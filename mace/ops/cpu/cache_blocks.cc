#include "mace/ops/cpu/cache_blocks.h"

#include <algorithm>

namespace mace {
namespace ops {
namespace {

constexpr int64_t kMaxKc = 256;

int64_t RoundDownTo(int64_t value, int64_t step) { return value / step * step; }

}  // namespace

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

}  // namespace ops
}  // namespace mace
