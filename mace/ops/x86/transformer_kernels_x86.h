// The x86-64 variants of the transformer element-wise kernels
// (cpu/transformer_kernels.h), each built with its instruction set's flags.
// Call them only on a CPU that has that instruction set.
#ifndef MACE_OPS_X86_TRANSFORMER_KERNELS_X86_H_
#define MACE_OPS_X86_TRANSFORMER_KERNELS_X86_H_

#include "mace/ops/cpu/transformer_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

TransformerKernels Avx2TransformerKernels();
TransformerKernels Avx512TransformerKernels();

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_TRANSFORMER_KERNELS_X86_H_
