// Reference uint8 element-wise add, subtract and multiply with rescaling.
//
// Add and subtract bring both inputs to a common scale first, as integers:
// each (q - zero_point) is shifted left by kEltwiseLeftShift (20) bits and
// requantized by input_scale / (2 * max(input scales)) (at most 0.5, so no
// precision is lost to the shift), the two are added or subtracted, and the
// sum is requantized by 2 * max(input scales) / (2^20 * output_scale).
// Multiply requantizes the product (q0 - z0) * (q1 - z1) by
// scale0 * scale1 / output_scale. Every step uses the rounding rule of
// common/quantize.h; MakeEltwiseQuantization builds the multipliers.
#ifndef MACE_OPS_REF_QUANTIZED_ELTWISE_H_
#define MACE_OPS_REF_QUANTIZED_ELTWISE_H_

#include <cstdint>
#include <string>

#include "mace/ops/common/quantize.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

constexpr int kEltwiseLeftShift = 20;

enum class EltwiseKind { kAdd, kSub, kMul };

struct EltwiseQuantization {
  EltwiseKind kind = EltwiseKind::kAdd;
  int32_t zero_point0 = 0, zero_point1 = 0;
  // Add and subtract: the inputs' and the sum's multipliers. Multiply: only
  // `output_multiplier`, for the product.
  QuantizedMultiplier multiplier0, multiplier1, output_multiplier;
  OutputClamp output;
};

// From the tensors' quantization; the error names `what`.
MaceStatus MakeEltwiseQuantization(EltwiseKind kind, const QuantParams& input0,
                                   const QuantParams& input1, const QuantParams& output,
                                   const std::string& what, EltwiseQuantization* quant);

// output[i] = input0[i] (op) input1[i], or input1[0] for every i when
// input1_count is 1; otherwise input1_count must be count.
void Eltwise(const EltwiseQuantization& quant, const uint8_t* input0, const uint8_t* input1,
             int64_t count, int64_t input1_count, uint8_t* output);

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_ELTWISE_H_
