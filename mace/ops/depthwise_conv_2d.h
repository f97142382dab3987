// DepthwiseConv2d: each input channel convolved with its own `multiplier`
// filters (MobileNet's depthwise layer). Filter layout is [multiplier,
// channels, kh, kw], as MACE stores TensorFlow's depthwise weights.
//
// DepthwiseConv2dBase is the device-neutral part: arguments (Init) and
// shapes (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/depthwise_conv_2d_cpu.cc.
#ifndef MACE_OPS_DEPTHWISE_CONV_2D_H_
#define MACE_OPS_DEPTHWISE_CONV_2D_H_

#include "mace/core/operation.h"
#include "mace/ops/common/conv_inputs.h"
#include "mace/ops/ref/depthwise_conv_2d.h"

namespace mace {
namespace ops {

class DepthwiseConv2dBase : public Operation {
 public:
  MaceStatus Init() override;
  int64_t Macs() const override;

 protected:
  // Checks the inputs' types and shapes against the arguments, fills
  // params() and sets the output's shape.
  MaceStatus InferShapes();
  const ref::DepthwiseConv2dParams& params() const { return params_; }
  const Tensor* Bias() const { return OptionalBias(*this); }

 private:
  WindowArgs window_;
  ref::DepthwiseConv2dParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_DEPTHWISE_CONV_2D_H_
