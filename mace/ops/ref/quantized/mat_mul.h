// Reference uint8 FullyConnected and MatMul: exact integer dot products with
// zero-point offsets, saturated to int32 and requantized (conv_2d.h has the
// accumulator rule; ConvQuantization's "input" is the left operand and its
// "filter" the right one).
#ifndef MACE_OPS_REF_QUANTIZED_MAT_MUL_H_
#define MACE_OPS_REF_QUANTIZED_MAT_MUL_H_

#include <cstdint>

#include "mace/ops/ref/quantized/conv_2d.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

// input [batch, depth], weight [units, depth], bias [units] or nullptr,
// output [batch, units]; unit u requantizes by multiplier(u).
struct FullyConnectedShape {
  int64_t batch = 0, depth = 0, units = 0;
};
void FullyConnected(const FullyConnectedShape& shape, const ConvQuantization& quant,
                    const uint8_t* input, const uint8_t* weight, const int32_t* bias,
                    uint8_t* output);
void FullyConnected(const FullyConnectedShape& shape, const ConvQuantization& quant,
                    const uint8_t* input, const int8_t* weight, const int32_t* bias,
                    uint8_t* output);

// a [batch, rows, depth] (stored [batch, depth, rows] when transpose_a),
// b [batch, depth, cols] (stored [batch, cols, depth] when transpose_b),
// output [batch, rows, cols]; one multiplier for all.
struct MatMulShape {
  int64_t batch = 0, rows = 0, depth = 0, cols = 0;
  bool transpose_a = false, transpose_b = false;
};
void MatMul(const MatMulShape& shape, const ConvQuantization& quant, const uint8_t* a,
            const uint8_t* b, uint8_t* output);

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_MAT_MUL_H_
