// Activation: a standalone activation function, for the activations that a
// converter could not fuse into the op before, and for PRELU, whose
// per-channel slope tensor only this op takes. Elementwise, so the output
// may take over the input's memory.
//
// ActivationBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/activation_cpu.cc.
#ifndef MACE_OPS_ACTIVATION_H_
#define MACE_OPS_ACTIVATION_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/activation.h"

namespace mace {
namespace ops {

class ActivationBase : public Operation {
 public:
  MaceStatus Init() override;
  int InPlaceInput() const override { return 0; }

 protected:
  // Checks the inputs' types and shapes, fills params() and sets the
  // output's shape.
  MaceStatus InferShapes();
  const ref::ActivationParams& params() const { return params_; }
  // PRELU's per-channel slope, or null.
  const Tensor* Alpha() const { return InputSize() > 1 ? Input(1) : nullptr; }

 private:
  ref::ActivationParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ACTIVATION_H_
