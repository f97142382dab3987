// Unary: one elementwise math function on a float tensor of any rank,
// named by the `type` argument (see ref::UnaryType): exp, log, rounding,
// sign, erf, trigonometric and hyperbolic functions, and the smooth
// activations (softplus, softsign, GELU, Mish, ELU, SELU, CELU, thresholded
// ReLU) that converters map to it. ELU, CELU and THRESHOLDED_RELU take
// `alpha`; SELU takes `alpha` and `gamma`. The output may take over the
// input's memory.
//
// UnaryBase is the device-neutral part; the CPU kernel
// (mace/ops/cpu/unary_cpu.cc) runs ERF and the two GELUs on the vectorized
// transformer kernels (cpu/transformer_kernels.h), the others on the
// reference one. No other runtime has a kernel, so the op falls back to the
// CPU there.
#ifndef MACE_OPS_UNARY_H_
#define MACE_OPS_UNARY_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/unary.h"

namespace mace {
namespace ops {

class UnaryBase : public Operation {
 public:
  MaceStatus Init() override;
  int InPlaceInput() const override { return 0; }

 protected:
  MaceStatus InferShapes();
  const ref::UnaryParams& params() const { return params_; }

 private:
  ref::UnaryParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_UNARY_H_
