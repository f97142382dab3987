// BatchNorm (inference): y = scale * (x - mean) / sqrt(var + epsilon) + offset
// per channel (dim 1), or the folded y = x * scale + offset that converters
// produce when they precompute the statistics. A fused activation follows.
// Elementwise, so the output may take over the input's memory.
//
// BatchNormBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/batch_norm_cpu.cc.
#ifndef MACE_OPS_BATCH_NORM_H_
#define MACE_OPS_BATCH_NORM_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/batch_norm.h"

namespace mace {
namespace ops {

class BatchNormBase : public Operation {
 public:
  MaceStatus Init() override;
  int InPlaceInput() const override { return 0; }

 protected:
  // Checks the inputs' types and shapes, fills params() and sets the
  // output's shape.
  MaceStatus InferShapes();
  const ref::BatchNormParams& params() const { return params_; }
  // Whether the statistics are folded into scale and offset (no mean, var).
  bool folded() const { return InputSize() == 3; }

 private:
  ref::BatchNormParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_BATCH_NORM_H_
