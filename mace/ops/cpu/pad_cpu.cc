// Pad's CPU kernel: the reference one (mace/ops/ref/pad.h).
#include "mace/ops/cpu/pad_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/pad.h"
#include "mace/ops/ref/pad.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewPadCpu() {
  return std::make_unique<RuntimeInputsRefKernelCpu<PadBase, ref::Pad>>();
}

}  // namespace ops
}  // namespace mace
