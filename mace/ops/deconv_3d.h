// Deconv3D: transposed 3-D convolution with ONNX ConvTranspose semantics, as
// Deconv2D one dimension up. The filter is [in_channels, out_channels / group,
// kd, kh, kw]; `pads` crop the full output.
//
// Arguments:
//   strides         ints [d, h, w], default 1
//   dilations       ints [d, h, w], default 1
//   pads            ints [d_begin, h_begin, w_begin, d_end, h_end, w_end]
//                   (ONNX's order), default 0: cropped from the full output
//   output_padding  ints [d, h, w], default 0: added to the full output's
//                   end, each smaller than its axis's stride or dilation
//   group           int, default 1
//
// The full output of each axis is
// (in - 1) * stride + dilation * (kernel - 1) + 1 + output_padding.
//
// Deconv3DBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes). The CPU kernel is mace/ops/cpu/deconv_3d_cpu.cc.
#ifndef MACE_OPS_DECONV_3D_H_
#define MACE_OPS_DECONV_3D_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/deconv_3d.h"

namespace mace {
namespace ops {

class Deconv3DBase : public Operation {
 public:
  MaceStatus Init() override;
  int64_t Macs() const override;

 protected:
  // Checks the inputs' types and shapes against the arguments, fills
  // params() and sets the output's shape.
  MaceStatus InferShapes();
  const ref::Deconv3DParams& params() const { return params_; }
  const Tensor* Bias() const { return InputSize() > 2 ? Input(2) : nullptr; }

 private:
  int64_t pads_[6] = {0, 0, 0, 0, 0, 0};
  int64_t output_padding_[3] = {0, 0, 0};
  ref::Deconv3DParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_DECONV_3D_H_
