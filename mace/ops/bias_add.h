// BiasAdd: adds a per-channel bias along dim 1 of an NCHW (or [N, C, ...])
// tensor, with a fused activation. Converters usually fold it into the
// preceding Conv2D or FullyConnected; the ones left run here. Elementwise, so
// the output may take over the input's memory.
//
// BiasAddBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/bias_add_cpu.cc.
#ifndef MACE_OPS_BIAS_ADD_H_
#define MACE_OPS_BIAS_ADD_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/bias_add.h"

namespace mace {
namespace ops {

class BiasAddBase : public Operation {
 public:
  MaceStatus Init() override;
  int InPlaceInput() const override { return 0; }

 protected:
  // Checks the inputs' types and shapes, fills params() and sets the
  // output's shape.
  MaceStatus InferShapes();
  const ref::BiasAddParams& params() const { return params_; }

 private:
  ref::BiasAddParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_BIAS_ADD_H_
