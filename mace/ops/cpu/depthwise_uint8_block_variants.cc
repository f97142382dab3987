#include "mace/ops/cpu/depthwise_uint8_block_variants.h"

namespace mace {
namespace ops {

std::vector<DepthwiseUint8BlockVariant> DepthwiseUint8BlockVariants(DepthwiseUint8BlockKernel) {
  return {};
}

}  // namespace ops
}  // namespace mace
