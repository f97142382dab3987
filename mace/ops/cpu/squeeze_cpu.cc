// Squeeze's CPU kernel: a copy the memory plan usually elides.
#include "mace/ops/cpu/squeeze_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/squeeze.h"

namespace mace {
namespace ops {

namespace {

// The aliased copy, after checking axes computed at run time.
class SqueezeCpu : public AliasedCopyCpu<SqueezeBase> {
 public:
  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(ReadRuntimeInputs());
    return AliasedCopyCpu<SqueezeBase>::Run(context);
  }
};

}  // namespace

std::unique_ptr<Operation> NewSqueezeCpu() { return std::make_unique<SqueezeCpu>(); }

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewSqueezeUint8Cpu() {
  return std::make_unique<KeepQuantizationCpu<SqueezeCpu>>();
}

}  // namespace ops
}  // namespace mace
