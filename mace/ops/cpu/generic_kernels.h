// CPU kernels that serve several ops as they are, each a template over the
// op's device-neutral base (the class with Init and InferShapes).
#ifndef MACE_OPS_CPU_GENERIC_KERNELS_H_
#define MACE_OPS_CPU_GENERIC_KERNELS_H_

#include <cstring>
#include <type_traits>

#include "mace/core/operation.h"
#include "mace/ops/common/uint8_checks.h"

namespace mace {
namespace ops {

// For ops whose output holds the input's bytes unchanged (Identity, Reshape,
// Squeeze). The output aliases the input whenever the memory planner allows
// it, so the kernel copies only when it does not.
template <typename Base>
class AliasedCopyCpu : public Base {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return this->InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    const Tensor* input = this->Input(0);
    Tensor* output = this->Output(0);
    // An aliased output already holds the data.
    if (output->raw_data() != input->raw_data()) {
      std::memcpy(output->raw_mutable_data(), input->raw_data(), input->raw_size());
    }
    return MaceStatus();
  }

  int InPlaceInput() const override { return 0; }
};

// Calls a reference kernel `kernel(params, input, output)` on elements of type
// T, or on raw bytes when T is void.
template <typename Params, typename T>
void RunRefKernel(void (*kernel)(const Params&, const T*, T*), const Params& params,
                  const Tensor& input, Tensor* output) {
  if constexpr (std::is_void_v<T>) {
    kernel(params, input.raw_data(), output->raw_mutable_data());
  } else {
    kernel(params, input.data<T>(), output->mutable_data<T>());
  }
}

// For ops whose one input and one output go through a reference kernel (in
// mace/ops/ref/) with the parameters the base's InferShapes fills.
template <typename Base, auto Kernel>
class RefKernelCpu : public Base {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return this->InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    RunRefKernel(Kernel, this->params(), *this->Input(0), this->Output(0));
    return MaceStatus();
  }
};

// RefKernelCpu for an op whose shape arguments may be tensors computed at
// run time: the base's ReadRuntimeInputs reads and checks them before each
// run.
template <typename Base, auto Kernel>
class RuntimeInputsRefKernelCpu final : public RefKernelCpu<Base, Kernel> {
 public:
  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(this->ReadRuntimeInputs());
    return RefKernelCpu<Base, Kernel>::Run(context);
  }
};

// The uint8 kernel of a data-movement op: `Kernel` (a float kernel that
// moves elements of any type, over the op's base) with every output given
// the quantization of input 0, or checked to have it.
template <typename Kernel>
class KeepQuantizationCpu final : public Kernel {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(Kernel::Prepare(context));
    for (int i = 0; i < this->OutputSize(); ++i) {
      MACE_RETURN_IF_ERROR(KeepInputQuantization(*this, *this->Input(0), this->Output(i)));
    }
    return MaceStatus();
  }
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_GENERIC_KERNELS_H_
