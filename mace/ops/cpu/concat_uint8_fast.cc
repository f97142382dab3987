#include "mace/ops/cpu/concat_uint8_fast.h"

#include <algorithm>
#include <cstring>

#include "mace/ops/cpu/quantized_output.h"

namespace mace {
namespace ops {
namespace {

// Bytes per block: the int32 sums of one block stay in L1.
constexpr int64_t kBlock = 1024;

void RescaleRun(const ref::quantized::ConcatInput& input, const OutputClamp& clamp,
                RequantizeRowKernel requantize_row, const uint8_t* from, uint8_t* to,
                ThreadPool* pool) {
  const int64_t blocks = (input.run + kBlock - 1) / kBlock;
  ParallelFor(pool, blocks, [&](int64_t begin, int64_t end) {
    int32_t sums[kBlock];
    for (int64_t b = begin; b < end; ++b) {
      const int64_t first = b * kBlock, count = std::min(kBlock, input.run - first);
      for (int64_t i = 0; i < count; ++i) sums[i] = from[first + i];
      requantize_row(MakeRequantizeRow(sums, nullptr, -int64_t{input.zero_point},
                                       input.multiplier, clamp, count, to + first));
    }
  });
}

}  // namespace

void ConcatUint8Fast(int64_t outer, const std::vector<ref::quantized::ConcatInput>& inputs,
                     int32_t output_zero_point, uint8_t* output,
                     RequantizeRowKernel requantize_row, ThreadPool* pool) {
  const OutputClamp clamp{output_zero_point, 0, 255};
  for (int64_t o = 0; o < outer; ++o) {
    for (const ref::quantized::ConcatInput& input : inputs) {
      const uint8_t* from = input.data + o * input.run;
      if (!input.rescale) {
        std::memcpy(output, from, input.run);
      } else if (requantize_row != nullptr &&
                 VectorRequantizeApplies(input.zero_point, 255, input.multiplier)) {
        RescaleRun(input, clamp, requantize_row, from, output, pool);
      } else {
        for (int64_t i = 0; i < input.run; ++i) {
          output[i] =
              RequantizeToUint8(int32_t{from[i]} - input.zero_point, input.multiplier, clamp);
        }
      }
      output += input.run;
    }
  }
}

}  // namespace ops
}  // namespace mace
