// Reference Eltwise: one arithmetic operation per output element, with
// numpy-style broadcasting expressed as per-dimension strides. It is the
// oracle that vectorized eltwise kernels are tested against.
#ifndef MACE_OPS_REF_ELTWISE_H_
#define MACE_OPS_REF_ELTWISE_H_

#include <cstdint>
#include <vector>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

// MACE's numbering, as stored in the `type` argument.
enum class EltwiseType {
  SUM = 0,
  SUB = 1,
  PROD = 2,
  DIV = 3,
  MIN = 4,
  MAX = 5,
  NEG = 6,
  ABS = 7,
  SQR_DIFF = 8,
  POW = 9,
};

// True for NEG and ABS, which read only the first operand.
inline bool IsUnary(EltwiseType type) {
  return type == EltwiseType::NEG || type == EltwiseType::ABS;
}

struct EltwiseParams {
  EltwiseType type = EltwiseType::SUM;
  // SUM computes coeff_a * a + coeff_b * b; 1 and 1 give the plain sum exactly.
  float coeff_a = 1.f, coeff_b = 1.f;
  // Output dimensions, and for each operand how far one step along each
  // output dimension moves in its data (0 where that operand broadcasts).
  std::vector<int64_t> shape;
  std::vector<int64_t> a_strides, b_strides;
  Activation activation;
};

// output: the product of `shape` values. b is ignored for unary types (and
// may be nullptr). output may be a or b when that operand's strides are the
// output's own row-major strides: each output element reads both operands
// before it is written, and no other element reads it afterwards.
void Eltwise(const EltwiseParams& params, const float* a, const float* b, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_ELTWISE_H_
