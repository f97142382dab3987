// DepthwiseUint8BlockVariants (cpu/depthwise_uint8_block_variants.h) on
// x86-64: the table takes the kernel that transposes with VBMI where the CPU
// has it, else the one with unpacks, which is then checked too.
#include "mace/ops/cpu/depthwise_uint8_block_variants.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {

std::vector<DepthwiseUint8BlockVariant> DepthwiseUint8BlockVariants(
    DepthwiseUint8BlockKernel kernel) {
  if (kernel == x86::VbmiDepthwiseUint8Block) {
    return {{"avx512 unpacks", x86::VnniDepthwiseUint8Block}};
  }
  return {};
}

}  // namespace ops
}  // namespace mace
