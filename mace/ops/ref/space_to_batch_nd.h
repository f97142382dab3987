// Reference SpaceToBatchND with TensorFlow's batch order on NCHW tensors:
// the zero-padded plane is cut into block_h x block_w phases, and each phase
// becomes a batch of its own.
#ifndef MACE_OPS_REF_SPACE_TO_BATCH_ND_H_
#define MACE_OPS_REF_SPACE_TO_BATCH_ND_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct SpaceToBatchNDParams {
  int64_t batch = 0, channels = 0, in_h = 0, in_w = 0;
  int64_t block_h = 1, block_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  // (in_h + pad_top + pad_bottom) / block_h, likewise for the width.
  int64_t out_h = 0, out_w = 0;
};

// input [batch, channels, in_h, in_w],
// output [block_h * block_w * batch, channels, out_h, out_w] with
//   output[(py * block_w + px) * batch + n, c, y, x] =
//       input[n, c, y * block_h + py - pad_top, x * block_w + px - pad_left]
// and 0 where that input position is padding.
void SpaceToBatchND(const SpaceToBatchNDParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_SPACE_TO_BATCH_ND_H_
