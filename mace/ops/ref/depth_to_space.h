// Reference DepthToSpace on NCHW: each group of block * block channels
// becomes one block x block tile of a single output channel.
#ifndef MACE_OPS_REF_DEPTH_TO_SPACE_H_
#define MACE_OPS_REF_DEPTH_TO_SPACE_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct DepthToSpaceParams {
  int64_t batch = 0, in_channels = 0, in_h = 0, in_w = 0;
  // block * block divides in_channels.
  int64_t block = 1;
  // false: DCR, the block offset is the slow part of the input channel
  // (TensorFlow, ONNX default). true: CRD, the output channel is.
  bool crd = false;
};

// input [batch, in_channels, in_h, in_w],
// output [batch, in_channels / block^2, in_h * block, in_w * block].
// Output (c, y * block + by, x * block + bx) reads input (y, x) of channel
//   DCR: (by * block + bx) * (in_channels / block^2) + c
//   CRD: (c * block + by) * block + bx
void DepthToSpace(const DepthToSpaceParams& params, const float* input, float* output);
// The same on uint8 data (the uint8 kernel).
void DepthToSpaceUint8(const DepthToSpaceParams& params, const uint8_t* input, uint8_t* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_DEPTH_TO_SPACE_H_
