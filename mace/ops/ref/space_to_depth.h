// Reference SpaceToDepth on NCHW, the inverse of DepthToSpace: each
// block x block tile of a channel becomes block * block channels.
#ifndef MACE_OPS_REF_SPACE_TO_DEPTH_H_
#define MACE_OPS_REF_SPACE_TO_DEPTH_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct SpaceToDepthParams {
  int64_t batch = 0, in_channels = 0, in_h = 0, in_w = 0;
  // Divides in_h and in_w.
  int64_t block = 1;
  // false: DCR, the block offset is the slow part of the output channel
  // (TensorFlow, ONNX). true: CRD, the input channel is.
  bool crd = false;
};

// input [batch, in_channels, in_h, in_w],
// output [batch, in_channels * block^2, in_h / block, in_w / block].
// Input (c, y * block + by, x * block + bx) goes to output (y, x) of channel
//   DCR: (by * block + bx) * in_channels + c
//   CRD: (c * block + by) * block + bx
void SpaceToDepth(const SpaceToDepthParams& params, const float* input, float* output);
// The same on uint8 data (the uint8 kernel).
void SpaceToDepthUint8(const SpaceToDepthParams& params, const uint8_t* input, uint8_t* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_SPACE_TO_DEPTH_H_
