// Reference Transpose: a permuting gather, one element at a time. It moves
// bytes, so one kernel serves every element type.
#ifndef MACE_OPS_REF_TRANSPOSE_H_
#define MACE_OPS_REF_TRANSPOSE_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

struct TransposeParams {
  int64_t element_size = 4;  // bytes
  std::vector<int64_t> input_shape;
  // Output dimension d is input dimension perm[d]; perm is a permutation of
  // 0 .. rank-1.
  std::vector<int64_t> perm;
};

// output has shape [input_shape[perm[0]], ..., input_shape[perm[rank-1]]].
void Transpose(const TransposeParams& params, const void* input, void* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_TRANSPOSE_H_
