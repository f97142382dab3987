// The output step the uint8 GEMM convolution and the depthwise kernel share:
// when the table's vectorized RequantizeRowKernel may run, and the row it
// runs on. Built with the baseline flags (only the kernels behind the table
// have ISA flags).
#ifndef MACE_OPS_CPU_QUANTIZED_OUTPUT_H_
#define MACE_OPS_CPU_QUANTIZED_OUTPUT_H_

#include <cstdint>

#include "mace/ops/common/quantize.h"
#include "mace/ops/cpu/quantized_micro_kernels.h"

namespace mace {
namespace ops {

// Whether the vectorized output step gives the rule of common/quantize.h for
// a total of `bias` and products whose sum is at most `max_products` in
// magnitude: the exact total must fit in int32 (no saturation, so wrapping
// int32 arithmetic is exact) and the multiplier must be below 1.
bool VectorRequantizeApplies(int64_t bias, int64_t max_products, const QuantizedMultiplier& m);

// The row for RequantizeRowKernel: out[i] for i < count from sums[i] +
// row_term (+ column_terms[i] where not null), with `m` and `clamp`. The
// row term is taken modulo 2^32, which is exact where
// VectorRequantizeApplies holds.
RequantizeRow MakeRequantizeRow(const int32_t* sums, const int32_t* column_terms, int64_t row_term,
                                const QuantizedMultiplier& m, const OutputClamp& clamp,
                                int64_t count, uint8_t* out);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_QUANTIZED_OUTPUT_H_
