// MaxPoolArgmax and MaxUnpool: max pooling that also says where in its window
// each maximum lies, and the scatter that puts values back there, as
// MediaPipe's custom ops MaxPoolingWithArgmax2D and MaxUnpooling2D compute
// them (its segmentation models pair them as encoder and decoder).
//
// MaxPoolArgmax: input x [N, C, H, W] float; outputs y and, optionally, the
// window indices, both [N, C, OH, OW] float.
//   kernels  ints [kh, kw], required
//   strides  ints [sh, sw], default 1
//   pads     ints [top, left, bottom, right], default 0
// OH = (H + top + bottom - kh) / sh + 1 (the padded input must hold the
// window), OW alike. The window index of a maximum is ky * kw + kx, counted
// in the window including its padded part, written as a float plus 0.1 so
// that truncation reads the integer back; ties keep the first maximum in
// row-major order (see ref::MaxPoolArgmax).
//
// MaxUnpool: inputs x and its window indices, both [N, C, H, W] float;
// output [N, C, OH, OW] float, zero except where an index sends a value.
//   kernels      ints [kh, kw], required: the pooling's window
//   strides      ints [sh, sw], default 1
//   pads         ints [top, left], default 0: the pooling's leading padding
//   output_size  ints [OH, OW], required
// Indices that decode to a pixel outside the output are skipped (see
// ref::MaxUnpool).
//
// The CPU kernels are the reference ones (mace/ops/ref/max_pool_argmax.cc).
#ifndef MACE_OPS_MAX_POOL_ARGMAX_H_
#define MACE_OPS_MAX_POOL_ARGMAX_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/max_pool_argmax.h"

namespace mace {
namespace ops {

class MaxPoolArgmax : public Operation {
 public:
  MaceStatus Init() override;
  MaceStatus Prepare(OpContext* context) override;
  MaceStatus Run(OpContext* context) override;

 private:
  int64_t pads_[4] = {0, 0, 0, 0};
  ref::ArgmaxWindow window_;
};

class MaxUnpool : public Operation {
 public:
  MaceStatus Init() override;
  MaceStatus Prepare(OpContext* context) override;
  MaceStatus Run(OpContext* context) override;

 private:
  ref::ArgmaxWindow window_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_MAX_POOL_ARGMAX_H_
