// Reference ArgMax: the index of the largest value along one axis.
#ifndef MACE_OPS_REF_ARG_MAX_H_
#define MACE_OPS_REF_ARG_MAX_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct ArgMaxParams {
  // The input viewed as [outer, axis_size, inner]; axis_size < 2^31.
  int64_t outer = 0, axis_size = 0, inner = 0;
  // On ties, report the last index instead of the first.
  bool select_last_index = false;
};

// output [outer, inner]. NaN ranks above every number, as in numpy, so the
// first (or last) NaN wins.
void ArgMax(const ArgMaxParams& params, const float* input, int32_t* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_ARG_MAX_H_
