// uint8 Concat with the rescaling of inputs quantized unlike the output on
// a kernel table's vectorized output step (RequantizeRowKernel), equal to
// ref::quantized::Concat bit for bit: an input's bytes become the row's
// sums and minus its zero point the row term, so the step computes
// output_zero_point + Requantize(q - zero_point). Inputs quantized like the
// output are copied. Threads split each rescaled run into blocks.
#ifndef MACE_OPS_CPU_CONCAT_UINT8_FAST_H_
#define MACE_OPS_CPU_CONCAT_UINT8_FAST_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/quantized_micro_kernels.h"
#include "mace/ops/ref/quantized/concat.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// `pool` may be null (one thread). An input whose multiplier is not below 1
// is rescaled by the reference rule, as is every input without
// `requantize_row`.
void ConcatUint8Fast(int64_t outer, const std::vector<ref::quantized::ConcatInput>& inputs,
                     int32_t output_zero_point, uint8_t* output,
                     RequantizeRowKernel requantize_row, ThreadPool* pool);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONCAT_UINT8_FAST_H_
