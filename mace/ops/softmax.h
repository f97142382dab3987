// Softmax: normalized exponentials along one axis (default the last), or
// log-softmax with use_log. Classifiers end with it; MobileNet v2 applies it
// to the channel axis of [N, classes, 1, 1] logits. Each output element
// depends only on its own slice, so the output may take over the input.
//
// SoftmaxBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/softmax_cpu.cc.
#ifndef MACE_OPS_SOFTMAX_H_
#define MACE_OPS_SOFTMAX_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/softmax.h"

namespace mace {
namespace ops {

class SoftmaxBase : public Operation {
 public:
  MaceStatus Init() override;
  int InPlaceInput() const override { return 0; }

 protected:
  // Checks the input's type and shape against the axis, fills params() and
  // sets the output's shape.
  MaceStatus InferShapes();
  const ref::SoftmaxParams& params() const { return params_; }

 private:
  int64_t axis_ = -1;
  ref::SoftmaxParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_SOFTMAX_H_
