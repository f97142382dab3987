// Other ways a table's blocked uint8 depthwise kernel can reach the same
// outputs, for its test (depthwise_conv_2d_uint8_test.cc) to check too:
// none in the portable version (depthwise_uint8_block_variants.cc); on
// x86-64 the AVX-512 VNNI kernel's unpack transposes, which it takes on
// CPUs without VBMI (x86/depthwise_uint8_block_variants_x86_64.cc). Built
// into that test only.
#ifndef MACE_OPS_CPU_DEPTHWISE_UINT8_BLOCK_VARIANTS_H_
#define MACE_OPS_CPU_DEPTHWISE_UINT8_BLOCK_VARIANTS_H_

#include <vector>

#include "mace/ops/cpu/quantized_micro_kernels.h"

namespace mace {
namespace ops {

struct DepthwiseUint8BlockVariant {
  const char* name;
  DepthwiseUint8BlockKernel kernel;
};

// The variants of `kernel` (a table's depthwise3x3_uint8_block).
std::vector<DepthwiseUint8BlockVariant> DepthwiseUint8BlockVariants(
    DepthwiseUint8BlockKernel kernel);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_UINT8_BLOCK_VARIANTS_H_
