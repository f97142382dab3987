// Fast uint8 Pooling, equal to ref::quantized::Pooling bit for bit. A
// window is the product of its valid rows and valid columns, so both max and
// sum are separable: each output row first reduces its window's valid input
// rows column by column (vectorized where the compiler can), then each
// output reduces its valid columns of that row. Divisors are products of
// row and column counts, exactly as the reference counts them. Threads
// split the planes (batch x channels). Max pooling rows run on a kernel
// table's vectorized row kernel where one fits (MaxPoolUint8RowKernel); a
// global average without padding sums each plane with psadbw (SSE2).
#ifndef MACE_OPS_CPU_POOLING_UINT8_FAST_H_
#define MACE_OPS_CPU_POOLING_UINT8_FAST_H_

#include <cstdint>

#include "mace/ops/cpu/quantized_micro_kernels.h"
#include "mace/ops/ref/pooling.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// `pool` may be null (one thread). A max pooling with dilation 1 across and
// horizontal stride 1 or 2 runs its rows on `max_row` where it is given (a
// kernel table's max_pool_uint8_row).
void PoolingUint8Fast(const ref::PoolingParams& params, int32_t zero_point, const uint8_t* input,
                      uint8_t* output, ThreadPool* pool, MaxPoolUint8RowKernel max_row = nullptr);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_UINT8_FAST_H_
