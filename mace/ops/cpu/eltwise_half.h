// A ReLU or a ReLU with an upper bound on half tensors (raw 16-bit
// patterns), for a residual sum kept in half precision: a half with its
// sign bit set is a negative int16, and non-negative halves order as their
// bit patterns do, so max(x, 0) and min(x, limit) are int16 max and min.
// Exact; needs no half arithmetic.
#ifndef MACE_OPS_CPU_ELTWISE_HALF_H_
#define MACE_OPS_CPU_ELTWISE_HALF_H_

#include <cstdint>

namespace mace {
namespace ops {

// data[i] = min(max(data[i], +0), limit): negative values (and -0) become
// +0; `limit` is a non-negative half's bits, 0x7c00 (+inf) for no bound.
void ClampHalves(uint16_t* data, int64_t count, uint16_t limit);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ELTWISE_HALF_H_
