// Reference Slice: a strided gather, one element at a time. Steps may be
// negative. It moves bytes, so one kernel serves every element type.
#ifndef MACE_OPS_REF_SLICE_H_
#define MACE_OPS_REF_SLICE_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

struct SliceParams {
  int64_t element_size = 4;  // bytes
  std::vector<int64_t> input_shape;
  std::vector<int64_t> output_shape;
  // Per dimension: the first input index read and the (non-zero) distance
  // between consecutive reads.
  std::vector<int64_t> starts;
  std::vector<int64_t> steps;
};

// Output element (i_0, ..., i_r) is input element (starts[d] + i_d * steps[d])
// for every dimension d. The caller guarantees every such index lies inside
// input_shape.
void Slice(const SliceParams& params, const void* input, void* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_SLICE_H_
