// The CPU kernel of Softmax (mace/ops/softmax.h).
#ifndef MACE_OPS_CPU_SOFTMAX_CPU_H_
#define MACE_OPS_CPU_SOFTMAX_CPU_H_

#include <cstdint>
#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSoftmaxCpu();

// The kernel's path for slices of adjacent values (the last axis): `outer`
// slices of `size` floats, on the transformer element-wise kernels of
// ActiveKernelIsa (the portable ones without). output may be input. Against the reference
// kernel (double precision) each softmax value is within 1e-6 of it
// relatively, and each log-softmax value within 1e-6 of the larger of 1
// and its magnitude (softmax_test measured at most 2.2e-7 and 1.2e-7);
// values whose exp is below FLT_MIN come out 0.
void SoftmaxContiguous(const float* input, int64_t outer, int64_t size, bool use_log,
                       float* output);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_SOFTMAX_CPU_H_
