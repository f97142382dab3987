// Conv2D: NCHW input, OIHW filter, optional grouped channels, bias and fused
// activation. Converters fold BatchNorm and BiasAdd into it, so it carries
// most of a CNN's MACs.
//
// Arguments beyond the window and activation ones:
//   group     int, default 1
//   winograd  int 0, 2, 4 or 6: largest Winograd tile for 3x3 stride-1 convs,
//             chosen by the converter; 0 (default) uses direct methods
//
// Conv2DBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernels are
// mace/ops/cpu/conv_2d_cpu.cc (float) and mace/ops/cpu/conv_2d_uint8.cc
// (uint8 activations with uint8 or int8 weights and an int32 bias).
#ifndef MACE_OPS_CONV_2D_H_
#define MACE_OPS_CONV_2D_H_

#include "mace/core/operation.h"
#include "mace/ops/common/conv_inputs.h"
#include "mace/ops/ref/conv_2d.h"

namespace mace {
namespace ops {

class Conv2DBase : public Operation {
 public:
  MaceStatus Init() override;
  int64_t Macs() const override;

 protected:
  // Checks the inputs' types (for the kernel's data type) and shapes
  // against the arguments, fills params() and sets the output's shape.
  MaceStatus InferShapes();
  const ref::Conv2DParams& params() const { return params_; }
  // The converter's Winograd request: 0, or the largest tile (2, 4 or 6).
  int winograd() const { return static_cast<int>(winograd_); }
  const Tensor* Bias() const { return OptionalBias(*this); }

 private:
  WindowArgs window_;
  ref::Conv2DParams params_;
  int64_t winograd_ = 0;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CONV_2D_H_
