// Reshape's CPU kernel: a copy the memory plan usually elides.
#include "mace/ops/cpu/reshape_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/reshape.h"

namespace mace {
namespace ops {

namespace {

// Checks a shape computed at run time before moving the data.
class ReshapeCpu : public AliasedCopyCpu<ReshapeBase> {
 public:
  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(CheckComputedShape());
    return AliasedCopyCpu<ReshapeBase>::Run(context);
  }
};

}  // namespace

std::unique_ptr<Operation> NewReshapeCpu() { return std::make_unique<ReshapeCpu>(); }

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewReshapeUint8Cpu() {
  return std::make_unique<KeepQuantizationCpu<ReshapeCpu>>();
}

}  // namespace ops
}  // namespace mace
