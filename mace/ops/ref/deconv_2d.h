// Reference Deconv2D (transposed convolution, ONNX ConvTranspose). Written as
// a gather over output pixels so every output is written exactly once, even
// pixels no input reaches (they get the bias).
#ifndef MACE_OPS_REF_DECONV_2D_H_
#define MACE_OPS_REF_DECONV_2D_H_

#include <cstdint>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

struct Deconv2DParams {
  int64_t batch = 0;
  int64_t in_channels = 0, in_h = 0, in_w = 0;
  int64_t out_channels = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  // Rows/columns cropped from the start of the full (uncropped) output.
  int64_t pad_top = 0, pad_left = 0;
  int64_t group = 1;
  Activation activation;
};

// input  [batch, in_channels, in_h, in_w]
// filter [in_channels, out_channels / group, kernel_h, kernel_w]
// bias   [out_channels], or nullptr
// output [batch, out_channels, out_h, out_w]: input pixel (ih, iw) reaches
//        output pixel (ih * stride_h - pad_top + kh * dilation_h, same for w).
void Deconv2D(const Deconv2DParams& params, const float* input, const float* filter,
              const float* bias, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_DECONV_2D_H_
