#include "mace/ops/ref/quantized/mat_mul.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {
namespace {

template <typename W>
void FullyConnectedImpl(const FullyConnectedShape& s, const ConvQuantization& quant,
                        const uint8_t* input, const W* weight, const int32_t* bias,
                        uint8_t* output) {
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t u = 0; u < s.units; ++u) {
      int64_t sum = bias != nullptr ? bias[u] : 0;
      for (int64_t k = 0; k < s.depth; ++k) {
        sum += (int64_t{input[n * s.depth + k]} - quant.input_zero_point) *
               (int64_t{weight[u * s.depth + k]} - quant.filter_zero_point);
      }
      output[n * s.units + u] =
          RequantizeToUint8(SaturateToInt32(sum), quant.multiplier(u), quant.output);
    }
  }
}

}  // namespace

void FullyConnected(const FullyConnectedShape& shape, const ConvQuantization& quant,
                    const uint8_t* input, const uint8_t* weight, const int32_t* bias,
                    uint8_t* output) {
  FullyConnectedImpl(shape, quant, input, weight, bias, output);
}

void FullyConnected(const FullyConnectedShape& shape, const ConvQuantization& quant,
                    const uint8_t* input, const int8_t* weight, const int32_t* bias,
                    uint8_t* output) {
  FullyConnectedImpl(shape, quant, input, weight, bias, output);
}

void MatMul(const MatMulShape& s, const ConvQuantization& quant, const uint8_t* a,
            const uint8_t* b, uint8_t* output) {
  for (int64_t n = 0; n < s.batch; ++n) {
    const uint8_t* a_n = a + n * s.rows * s.depth;
    const uint8_t* b_n = b + n * s.depth * s.cols;
    for (int64_t i = 0; i < s.rows; ++i) {
      for (int64_t j = 0; j < s.cols; ++j) {
        int64_t sum = 0;
        for (int64_t k = 0; k < s.depth; ++k) {
          const uint8_t lhs = s.transpose_a ? a_n[k * s.rows + i] : a_n[i * s.depth + k];
          const uint8_t rhs = s.transpose_b ? b_n[j * s.depth + k] : b_n[k * s.cols + j];
          sum += (int64_t{lhs} - quant.input_zero_point) * (int64_t{rhs} - quant.filter_zero_point);
        }
        output[(n * s.rows + i) * s.cols + j] =
            RequantizeToUint8(SaturateToInt32(sum), quant.multiplier(0), quant.output);
      }
    }
  }
}

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace
