// Deconv2D: transposed convolution with ONNX ConvTranspose semantics. The
// filter is [in_channels, out_channels / group, kh, kw]; `pads` crop the full
// output rather than pad the input, and `padding` 1/2 (SAME) size the output
// to input * stride as TensorFlow's conv2d_transpose does.
//
// Arguments beyond the window and activation ones:
//   group           int, default 1
//   output_padding  ints [h, w], added to the uncropped output
//
// Deconv2DBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/deconv_2d_cpu.cc.
#ifndef MACE_OPS_DECONV_2D_H_
#define MACE_OPS_DECONV_2D_H_

#include "mace/core/operation.h"
#include "mace/ops/common/conv_inputs.h"
#include "mace/ops/ref/deconv_2d.h"

namespace mace {
namespace ops {

class Deconv2DBase : public Operation {
 public:
  MaceStatus Init() override;
  int64_t Macs() const override;

 protected:
  // Checks the inputs' types and shapes against the arguments, fills
  // params() and sets the output's shape.
  MaceStatus InferShapes();
  const ref::Deconv2DParams& params() const { return params_; }
  const Tensor* Bias() const { return OptionalBias(*this); }

 private:
  // Leading crop and output length of one dimension whose uncropped output
  // is `full` long.
  void ComputeDim(int64_t in, int64_t stride, int64_t full, int64_t explicit_begin,
                  int64_t explicit_end, int64_t* crop_begin, int64_t* out) const;

  WindowArgs window_;
  int64_t output_padding_h_ = 0, output_padding_w_ = 0;
  ref::Deconv2DParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_DECONV_2D_H_
