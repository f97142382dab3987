// MaxPool3D: max pooling over NCDHW windows with ONNX MaxPool's semantics,
// and optionally its Indices output. (Pooling without indices over 3-D
// windows needs no op of its own: the converter runs it as two 2-D
// Poolings, which a per-voxel index cannot come out of.)
//
// Arguments:
//   kernels        ints [kd, kh, kw], required
//   strides        ints [d, h, w], default 1
//   dilations      ints [d, h, w], default 1
//   pads           ints [d_begin, h_begin, w_begin, d_end, h_end, w_end]
//                  (ONNX's order), default 0
//   ceil_mode      int 0 or 1: round each output size up, dropping a last
//                  window that would start in the end padding (as ONNX)
//   storage_order  int 0 or 1: the second output counts a voxel row-major
//                  (0) or column-major over D, H and W (1), as ONNX and
//                  ONNX Runtime do (see ref::MaxPool3D)
//
// Each output axis is (in + begin + end - dilation * (kernel - 1) - 1) /
// stride + 1, rounded down (or up with ceil_mode). Output 0 is float;
// output 1, when present, is int32 of the same shape: where each maximum
// lies in the whole input, batch and channel included. The input is float
// with fewer than 2^31 elements.
//
// The CPU kernel is the reference one (mace/ops/ref/max_pool_3d.cc).
#ifndef MACE_OPS_MAX_POOL_3D_H_
#define MACE_OPS_MAX_POOL_3D_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/max_pool_3d.h"

namespace mace {
namespace ops {

class MaxPool3D : public Operation {
 public:
  MaceStatus Init() override;
  MaceStatus Prepare(OpContext* context) override;
  MaceStatus Run(OpContext* context) override;
  DataType OutputType(int index) const override {
    return index == 1 ? DT_INT32 : kernel_dtype();
  }

 private:
  int64_t pads_[6] = {0, 0, 0, 0, 0, 0};
  bool ceil_mode_ = false;
  ref::MaxPool3DParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_MAX_POOL_3D_H_
