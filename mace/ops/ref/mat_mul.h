// Reference MatMul: batched matrix product with numpy-style broadcasting of
// the batch dimensions.
#ifndef MACE_OPS_REF_MAT_MUL_H_
#define MACE_OPS_REF_MAT_MUL_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

struct MatMulParams {
  // Each product is [m, k] x [k, n] after the optional transposes.
  int64_t m = 0, k = 0, n = 0;
  // A is stored [k, m] (B [n, k]) per matrix when transposed.
  bool transpose_a = false, transpose_b = false;
  // Output batch dimensions, and for A and B the distance in whole matrices
  // between neighbours along each of them (0 where that operand broadcasts).
  std::vector<int64_t> batch_shape;
  std::vector<int64_t> a_batch_strides, b_batch_strides;
};

// a, b: the operands; bias [n] or nullptr, added to every output row;
// output [batch_shape..., m, n].
void MatMul(const MatMulParams& params, const float* a, const float* b, const float* bias,
            float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_MAT_MUL_H_
