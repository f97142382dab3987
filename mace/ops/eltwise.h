// Eltwise: SUM, SUB, PROD, DIV, MIN, MAX, SQR_DIFF and POW of two tensors
// broadcast numpy-style, or of one tensor and the scalar argument
// `scalar_input`; NEG and ABS of one tensor. A fused activation follows.
// Residual additions in MobileNet v2 and ResNet are SUMs of equal shapes.
//
// Arguments beyond the activation ones:
//   type                int 0 SUM ... 9 POW (required)
//   scalar_input        float, the second operand when there is one input
//   scalar_input_index  int 0 (scalar first) or 1 (second, default)
//   coeff               floats [a, b]: SUM computes a * x + b * y
//
// EltwiseBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/eltwise_cpu.cc.
#ifndef MACE_OPS_ELTWISE_H_
#define MACE_OPS_ELTWISE_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/eltwise.h"

namespace mace {
namespace ops {

class EltwiseBase : public Operation {
 public:
  MaceStatus Init() override;
  int InPlaceInput() const override { return in_place_ ? 0 : -1; }

 protected:
  // Checks the inputs' types and shapes, broadcasts them into params() and
  // sets the output's shape.
  MaceStatus InferShapes();
  const ref::EltwiseParams& params() const { return params_; }
  // With one input and a binary type: the scalar operand and its side.
  bool has_scalar() const { return InputSize() == 1 && !ref::IsUnary(params_.type); }
  const float& scalar() const { return scalar_; }
  int64_t scalar_index() const { return scalar_index_; }

 private:
  // Right-aligns the two shapes, checks that each pair of dimensions is equal
  // or has a 1, and derives the output shape and both operands' strides.
  MaceStatus Broadcast(const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape);

  ref::EltwiseParams params_;
  float scalar_ = 0.f;
  int64_t scalar_index_ = 1;
  bool in_place_ = false;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ELTWISE_H_
