// Reshape's CPU kernel: a copy the memory plan usually elides.
#include "mace/ops/cpu/reshape_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/reshape.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewReshapeCpu() {
  return std::make_unique<AliasedCopyCpu<ReshapeBase>>();
}

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewReshapeUint8Cpu() {
  return std::make_unique<KeepQuantizationCpu<AliasedCopyCpu<ReshapeBase>>>();
}

}  // namespace ops
}  // namespace mace
