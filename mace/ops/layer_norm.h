// LayerNorm: normalizes the input over its axes from `axis` (default -1) to
// the last, as ONNX's LayerNormalization does. Inputs [x, optional scale,
// optional bias]; scale and bias hold as many values as the normalized axes
// (any shape of that size). `epsilon` (default 1e-5) is added to the
// variance. Outputs [y, optional mean, optional inv_std_dev]; the two
// statistics have x's shape with the normalized axes set to 1.
//
// The converter also builds InstanceNormalization and GroupNormalization
// from it. LayerNormBase is the device-neutral part; the CPU kernel is
// mace/ops/cpu/layer_norm_cpu.cc.
#ifndef MACE_OPS_LAYER_NORM_H_
#define MACE_OPS_LAYER_NORM_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/layer_norm.h"

namespace mace {
namespace ops {

class LayerNormBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  MaceStatus InferShapes();
  const ref::LayerNormParams& params() const { return params_; }
  // The optional inputs and outputs, or nullptr.
  const Tensor* scale() const { return InputSize() > 1 ? Input(1) : nullptr; }
  const Tensor* bias() const { return InputSize() > 2 ? Input(2) : nullptr; }
  Tensor* stat_output(int index) { return OutputSize() > index ? Output(index) : nullptr; }

 private:
  int64_t axis_ = -1;
  ref::LayerNormParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_LAYER_NORM_H_
