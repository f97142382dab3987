// Reference uint8 Pooling, with the geometry of ref::Pooling. The output has
// the input's scale and zero point (the op checks), so max pooling is exact
// and average pooling is an integer mean: (sum + divisor / 2) / divisor, half
// up, which for these non-negative sums is half away from zero. Taps in
// declared padding that count toward the divisor (count_include_pad) hold
// the zero point; a window over no input at all gives the zero point.
#ifndef MACE_OPS_REF_QUANTIZED_POOLING_H_
#define MACE_OPS_REF_QUANTIZED_POOLING_H_

#include <cstdint>

#include "mace/ops/ref/pooling.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

void Pooling(const PoolingParams& params, int32_t zero_point, const uint8_t* input,
             uint8_t* output);

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_POOLING_H_
