// Reference Deconv3D (transposed 3-D convolution, ONNX ConvTranspose over
// [N, C, D, H, W]). A gather over output voxels, as ref::Deconv2D: every
// output is written exactly once, voxels no input reaches get the bias.
#ifndef MACE_OPS_REF_DECONV_3D_H_
#define MACE_OPS_REF_DECONV_3D_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct Deconv3DParams {
  int64_t batch = 0;
  int64_t in_channels = 0, out_channels = 0, group = 1;
  // Depth, height and width, in that order.
  int64_t in[3] = {0, 0, 0};
  int64_t out[3] = {0, 0, 0};
  int64_t kernel[3] = {0, 0, 0};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  // Cropped from the start of the full (uncropped) output on each axis.
  int64_t crop[3] = {0, 0, 0};
};

// input  [batch, in_channels, in_d, in_h, in_w]
// filter [in_channels, out_channels / group, kd, kh, kw]
// bias   [out_channels], or nullptr
// output [batch, out_channels, out_d, out_h, out_w]: input voxel i reaches
//        output voxel i * stride - crop + k * dilation on each axis.
void Deconv3D(const Deconv3DParams& params, const float* input, const float* filter,
              const float* bias, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_DECONV_3D_H_
