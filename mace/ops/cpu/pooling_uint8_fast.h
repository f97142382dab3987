// Fast uint8 Pooling, equal to ref::quantized::Pooling bit for bit. A
// window is the product of its valid rows and valid columns, so both max and
// sum are separable: each output row first reduces its window's valid input
// rows column by column (vectorized where the compiler can), then each
// output reduces its valid columns of that row. Divisors are products of
// row and column counts, exactly as the reference counts them. Threads
// split the planes (batch x channels).
#ifndef MACE_OPS_CPU_POOLING_UINT8_FAST_H_
#define MACE_OPS_CPU_POOLING_UINT8_FAST_H_

#include <cstdint>

#include "mace/ops/ref/pooling.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// `pool` may be null (one thread).
void PoolingUint8Fast(const ref::PoolingParams& params, int32_t zero_point, const uint8_t* input,
                      uint8_t* output, ThreadPool* pool);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_UINT8_FAST_H_
