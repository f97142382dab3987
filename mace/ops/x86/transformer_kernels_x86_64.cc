// The x86-64 port's transformer element-wise kernels: AVX2 + FMA and
// AVX-512. Built with baseline flags; cpu/transformer_kernels.cc asks for a
// variant only after the CPU feature check, and each is filled on its first
// request.
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/x86/transformer_kernels_x86.h"

namespace mace {
namespace ops {

const TransformerKernels* PortTransformerKernels(KernelIsa isa,
                                                 const TransformerKernels& /*portable*/) {
  if (isa == KernelIsa::kAvx2Fma) {
    static const TransformerKernels avx2 = x86::Avx2TransformerKernels();
    return &avx2;
  }
  if (isa == KernelIsa::kAvx512) {
    static const TransformerKernels avx512 = x86::Avx512TransformerKernels();
    return &avx512;
  }
  return nullptr;
}

}  // namespace ops
}  // namespace mace
