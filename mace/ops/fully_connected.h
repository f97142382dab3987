// FullyConnected: output = activation(flatten(input) * weight^T + bias).
// A rank-4 input is flattened per batch in NCHW order and the output keeps
// MACE's [N, O, 1, 1] shape so following NCHW ops still see rank 4.
//
// FullyConnectedBase is the device-neutral part: arguments (Init) and
// shapes (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/fully_connected_cpu.cc.
#ifndef MACE_OPS_FULLY_CONNECTED_H_
#define MACE_OPS_FULLY_CONNECTED_H_

#include "mace/core/operation.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/ref/fully_connected.h"

namespace mace {
namespace ops {

class FullyConnectedBase : public Operation {
 public:
  MaceStatus Init() override;
  int64_t Macs() const override;

 protected:
  // Checks the inputs' types and shapes, fills params() and sets the
  // output's shape.
  MaceStatus InferShapes();
  // The shape part of InferShapes (input [N, K] or [N, C, H, W], weight
  // [O, K]; not the bias), for kin ops whose inputs have other types.
  MaceStatus InferInputWeightShapes();
  const ref::FullyConnectedParams& params() const { return params_; }
  ref::FullyConnectedParams* mutable_params() { return &params_; }
  const Tensor* Bias() const { return OptionalBias(*this); }

 private:
  ref::FullyConnectedParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_FULLY_CONNECTED_H_
