// Slice's CPU kernel: the reference one (mace/ops/ref/slice.h).
#include "mace/ops/cpu/slice_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/slice.h"
#include "mace/ops/slice.h"

namespace mace {
namespace ops {

namespace {

// Reads bounds computed at run time before moving the data.
class SliceCpu : public RefKernelCpu<SliceBase, ref::Slice> {
 public:
  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(ReadComputedBounds());
    return RefKernelCpu<SliceBase, ref::Slice>::Run(context);
  }
};

}  // namespace

std::unique_ptr<Operation> NewSliceCpu() { return std::make_unique<SliceCpu>(); }

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewSliceUint8Cpu() {
  return std::make_unique<KeepQuantizationCpu<SliceCpu>>();
}

}  // namespace ops
}  // namespace mace
