// Conv3D: 3-D convolution with ONNX Conv semantics over NCDHW. The filter is
// [out_channels, in_channels / group, kd, kh, kw] (OIDHW, as ONNX has it).
//
// Arguments:
//   strides     ints [d, h, w], default 1
//   dilations   ints [d, h, w], default 1
//   pads        ints [d_begin, h_begin, w_begin, d_end, h_end, w_end]
//               (ONNX's order), default 0
//   group       int, default 1: must divide both channel counts
//   activation  the fused activation (mace/ops/common/activation.h)
//
// Each output axis is (in + begin + end - dilation * (kernel - 1) - 1) /
// stride + 1 (rounded down), and must be at least 1.
//
// Conv3DBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes). The CPU kernel is mace/ops/cpu/conv_3d_cpu.cc.
#ifndef MACE_OPS_CONV_3D_H_
#define MACE_OPS_CONV_3D_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/conv_3d.h"

namespace mace {
namespace ops {

class Conv3DBase : public Operation {
 public:
  MaceStatus Init() override;
  int64_t Macs() const override;

 protected:
  // Checks the inputs' types and shapes against the arguments, fills
  // params() and sets the output's shape.
  MaceStatus InferShapes();
  const ref::Conv3DParams& params() const { return params_; }
  const Tensor* Bias() const { return InputSize() > 2 ? Input(2) : nullptr; }

 private:
  int64_t pads_[6] = {0, 0, 0, 0, 0, 0};
  ref::Conv3DParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CONV_3D_H_
