// Reference Conv3D (ONNX Conv over [N, C, D, H, W]): a direct loop over
// output voxels, accumulated in double, taps in the padding skipped.
#ifndef MACE_OPS_REF_CONV_3D_H_
#define MACE_OPS_REF_CONV_3D_H_

#include <cstdint>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

struct Conv3DParams {
  int64_t batch = 0;
  int64_t in_channels = 0, out_channels = 0, group = 1;
  // Depth, height and width, in that order.
  int64_t in[3] = {0, 0, 0};
  int64_t out[3] = {0, 0, 0};
  int64_t kernel[3] = {0, 0, 0};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  // Leading padding of each axis; the trailing padding only shapes `out`.
  int64_t pad[3] = {0, 0, 0};
  Activation activation;
};

// input  [batch, in_channels, in_d, in_h, in_w]
// filter [out_channels, in_channels / group, kd, kh, kw] (ONNX's OIDHW)
// bias   [out_channels], or nullptr
// output [batch, out_channels, out_d, out_h, out_w]: output voxel o reads
//        input voxel o * stride - pad + k * dilation on each axis.
void Conv3D(const Conv3DParams& params, const float* input, const float* filter, const float* bias,
            float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_CONV_3D_H_
