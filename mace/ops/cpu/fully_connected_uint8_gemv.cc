#include "mace/ops/cpu/fully_connected_uint8_gemv.h"

#include <algorithm>

#include "mace/ops/common/quantize.h"
#include "mace/ops/ref/quantized/conv_2d.h"

namespace mace {
namespace ops {

std::unique_ptr<FullyConnectedUint8Gemv> FullyConnectedUint8Gemv::Create(
    const KernelTable& table, const ref::quantized::FullyConnectedShape& shape,
    const ref::quantized::ConvQuantization& quant, const void* weight, bool int8_weight) {
  if (table.quantized_gemv == nullptr || shape.batch != 1 || shape.depth < 1 ||
      shape.units < 1) {
    return nullptr;
  }
  const int64_t padded = (shape.depth + kQuantGemvDepth - 1) / kQuantGemvDepth * kQuantGemvDepth;
  if (padded > kQuantGemvMaxDepth) return nullptr;
  std::unique_ptr<FullyConnectedUint8Gemv> gemv(new FullyConnectedUint8Gemv());
  gemv->gemv_ = table.quantized_gemv;
  gemv->shape_ = shape;
  gemv->quant_ = quant;
  gemv->padded_depth_ = padded;
  gemv->offset_ = int8_weight ? 0 : 128;
  gemv->weight_.assign(shape.units * padded, 0);
  gemv->row_sums_.assign(shape.units, 0);
  for (int64_t u = 0; u < shape.units; ++u) {
    int8_t* row = gemv->weight_.data() + u * padded;
    int64_t sum = 0;
    for (int64_t k = 0; k < shape.depth; ++k) {
      const int64_t index = u * shape.depth + k;
      const int32_t w = int8_weight ? static_cast<const int8_t*>(weight)[index]
                                    : static_cast<const uint8_t*>(weight)[index] - 128;
      row[k] = static_cast<int8_t>(w);
      sum += w;
    }
    gemv->row_sums_[u] = sum;
  }
  gemv->vector_.assign(padded, 0);
  gemv->sums_.resize(shape.units);
  return gemv;
}

void FullyConnectedUint8Gemv::Run(const uint8_t* input, const int32_t* bias, uint8_t* output,
                                  ThreadPool* pool) {
  const int64_t depth = shape_.depth, units = shape_.units;
  std::copy(input, input + depth, vector_.begin());  // the padding stays 0
  int64_t input_sum = 0;
  for (int64_t k = 0; k < depth; ++k) input_sum += input[k];
  const int64_t zx = quant_.input_zero_point;
  const int64_t shift = offset_ - int64_t{quant_.filter_zero_point};
  const int64_t common = shift * input_sum - depth * zx * shift;
  // Threads take whole blocks of 16 rows (4 tiles of the kernel).
  constexpr int64_t kBlock = 16;
  const int64_t blocks = (units + kBlock - 1) / kBlock;
  ParallelFor(pool, blocks, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kBlock, last = std::min(units, end * kBlock);
    gemv_(weight_.data() + first * padded_depth_, vector_.data(), last - first, padded_depth_,
          sums_.data() + first);
    for (int64_t u = first; u < last; ++u) {
      const int64_t total = (bias != nullptr ? bias[u] : 0) + sums_[u] + common -
                            zx * row_sums_[u];
      output[u] = RequantizeToUint8(ref::quantized::SaturateToInt32(total), quant_.multiplier(u),
                                    quant_.output);
    }
  });
}

}  // namespace ops
}  // namespace mace
