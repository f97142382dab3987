// Reference uint8 Softmax. The output is quantized with scale 1/256 and zero
// point 0, as TFLite's uint8 softmax. Internals are integers apart from one
// table: since the inputs are uint8, exp(-input_scale * d) for the distance
// d = max - q in [0, 255] has only 256 values, computed once in double and
// rounded to integers of 24 fraction bits (SoftmaxTable). Each output is
// then t[d] * 256 / sum(t), rounded half up (all terms are non-negative, so
// half away from zero), capped at 255.
#ifndef MACE_OPS_REF_QUANTIZED_SOFTMAX_H_
#define MACE_OPS_REF_QUANTIZED_SOFTMAX_H_

#include <array>
#include <cstdint>

#include "mace/ops/ref/softmax.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

constexpr float kSoftmaxOutputScale = 1.f / 256.f;
constexpr int kSoftmaxTableBits = 24;

using SoftmaxTable = std::array<uint32_t, 256>;

// t[d] = round(exp(-input_scale * d) * 2^24).
SoftmaxTable MakeSoftmaxTable(float input_scale);

// params.use_log must be false. output may be input.
void Softmax(const SoftmaxParams& params, const SoftmaxTable& table, const uint8_t* input,
             uint8_t* output);

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_SOFTMAX_H_
