// LayerNorm's fast CPU kernel: the same computation as ref::LayerNorm with
// the two reductions (mean, variance) in float lanes the compiler
// vectorizes: eight lanes over blocks of 256 values, each block added to a
// double total, so long rows keep the reference's accuracy. The affine
// part stays in double, as in the reference. Rows are split over `pool`
// (null: the calling thread) when there are enough values.
#ifndef MACE_OPS_CPU_LAYER_NORM_FAST_H_
#define MACE_OPS_CPU_LAYER_NORM_FAST_H_

#include <cstdint>

#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/ref/layer_norm.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// With `rows_kernel` (the transformer kernel family's layer_norm) its
// vectors run rather than LayerNormRows.
void LayerNormFast(const ref::LayerNormParams& params, const float* input, const float* scale,
                   const float* bias, float* output, float* mean, float* inv_std_dev,
                   ThreadPool* pool = nullptr, LayerNormRowsKernel rows_kernel = nullptr);

// Rows [begin, end) of LayerNormFast, on the calling thread.
void LayerNormRows(const ref::LayerNormParams& params, int64_t begin, int64_t end,
                   const float* input, const float* scale, const float* bias, float* output,
                   float* mean, float* inv_std_dev);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_LAYER_NORM_FAST_H_
