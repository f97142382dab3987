// ResizeBilinear's CPU kernel: the reference one (mace/ops/ref/resize_bilinear.h).
#include "mace/ops/cpu/resize_bilinear_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/resize_bilinear.h"
#include "mace/ops/resize_bilinear.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewResizeBilinearCpu() {
  return std::make_unique<RuntimeInputsRefKernelCpu<ResizeBilinearBase, ref::ResizeBilinear>>();
}

}  // namespace ops
}  // namespace mace
