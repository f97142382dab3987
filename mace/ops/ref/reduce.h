// Reference Reduce: MEAN, MIN, MAX, PROD or SUM over any set of axes of a
// tensor of any rank.
#ifndef MACE_OPS_REF_REDUCE_H_
#define MACE_OPS_REF_REDUCE_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

// Values match MACE's reduce_type argument.
enum class ReduceType { MEAN = 0, MIN = 1, MAX = 2, PROD = 3, SUM = 4 };

struct ReduceParams {
  ReduceType type = ReduceType::MEAN;
  // The input's kept dimensions in order, as sizes and element strides. Their
  // row-major enumeration is the output order, with or without keepdims.
  std::vector<int64_t> kept_sizes, kept_strides;
  // The reduced dimensions likewise; each output reduces all their elements.
  std::vector<int64_t> reduced_sizes, reduced_strides;
};

// MEAN, SUM and PROD accumulate in double. MIN and MAX return NaN if any
// reduced element is NaN. Reducing no elements (a reduced size of 0) gives
// ONNX's values: MIN +inf, MAX -inf, PROD 1, SUM 0, MEAN NaN.
void Reduce(const ReduceParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_REDUCE_H_
