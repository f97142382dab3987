// Slice's CPU kernel: the reference one (mace/ops/ref/slice.h).
#include "mace/ops/cpu/slice_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/slice.h"
#include "mace/ops/slice.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSliceCpu() {
  return std::make_unique<RefKernelCpu<SliceBase, ref::Slice>>();
}

}  // namespace ops
}  // namespace mace
