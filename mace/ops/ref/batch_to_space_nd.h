// Reference BatchToSpaceND with TensorFlow's batch order on NCHW tensors, the
// inverse of SpaceToBatchND: the block_h * block_w phase batches are
// interleaved back into one plane, which is then cropped.
#ifndef MACE_OPS_REF_BATCH_TO_SPACE_ND_H_
#define MACE_OPS_REF_BATCH_TO_SPACE_ND_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct BatchToSpaceNDParams {
  // in_batch is block_h * block_w * (output batch).
  int64_t in_batch = 0, channels = 0, in_h = 0, in_w = 0;
  int64_t block_h = 1, block_w = 1;
  int64_t crop_top = 0, crop_left = 0;
  // in_h * block_h - crop_top - crop_bottom, likewise for the width.
  int64_t out_h = 0, out_w = 0;
};

// input [in_batch, channels, in_h, in_w],
// output [in_batch / (block_h * block_w), channels, out_h, out_w] with
//   output[n, c, y, x] = input[(py * block_w + px) * batch + n, c, fy / block_h, fx / block_w]
// where fy = y + crop_top, py = fy % block_h (likewise fx, px) and batch is
// the output batch.
void BatchToSpaceND(const BatchToSpaceNDParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_BATCH_TO_SPACE_ND_H_
