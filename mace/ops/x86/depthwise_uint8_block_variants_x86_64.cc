// DepthwiseUint8BlockVariants (cpu/depthwise_uint8_block_variants.h) on
// x86-64: the AVX-512 VNNI kernel transposes with VBMI where the CPU has it,
// else with unpacks, which are then checked on every AVX-512 VNNI CPU.
#include "mace/ops/cpu/depthwise_uint8_block_variants.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {

std::vector<DepthwiseUint8BlockVariant> DepthwiseUint8BlockVariants(
    DepthwiseUint8BlockKernel kernel) {
  if (kernel == x86::VnniDepthwiseUint8Block) {
    return {{"avx512 unpacks", x86::VnniDepthwiseUint8BlockUnpacks}};
  }
  return {};
}

}  // namespace ops
}  // namespace mace
