// Reference MaxPool3D (ONNX MaxPool over [N, C, D, H, W] with its Indices
// output): a direct scan of each window's taps inside the input.
#ifndef MACE_OPS_REF_MAX_POOL_3D_H_
#define MACE_OPS_REF_MAX_POOL_3D_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct MaxPool3DParams {
  int64_t batch = 0, channels = 0;
  // Depth, height and width, in that order.
  int64_t in[3] = {0, 0, 0};
  int64_t out[3] = {0, 0, 0};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  // Leading padding of each axis; the trailing padding only shapes `out`.
  int64_t pad[3] = {0, 0, 0};
  // How indices count a voxel (d, h, w) of its plane: row-major
  // (d * H + h) * W + w, or column-major d + h * D + w * D * H.
  bool column_major = false;
};

// input   [batch, channels, in_d, in_h, in_w]
// output  [batch, channels, out_d, out_h, out_w]: output voxel o reads input
//         voxels o * stride - pad + k * dilation on each axis that lie inside
//         the input; taps are scanned in row-major (kd, kh, kw) order and a
//         later tap replaces the maximum only when greater, so the first of
//         equal maxima wins.
// indices (may be null) where each maximum lies in the whole input:
//         plane * D * H * W + the voxel's offset in its plane (plane is
//         n * channels + c). A window of padding only gives 0 and -1.
void MaxPool3D(const MaxPool3DParams& params, const float* input, float* output,
               int32_t* indices);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_MAX_POOL_3D_H_
