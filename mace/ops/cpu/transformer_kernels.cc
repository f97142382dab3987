// The transformer element-wise kernels' variants: the portable one, built
// here with the baseline's flags, and the port's per instruction set
// (PortTransformerKernels) for the families the CPU supports.
#include "mace/ops/cpu/transformer_kernels.h"

namespace mace {
namespace ops {
namespace {
// Four lanes: one register of the baseline vector units (SSE2, NEON).
constexpr int kTkLanes = 4;
#include "mace/ops/cpu/transformer_kernels.inc"

const CpuFeatures& Features() {
  static const CpuFeatures features = DetectCpuFeatures();
  return features;
}

constexpr KernelIsa kPortIsas[] = {KernelIsa::kAvx2Fma, KernelIsa::kAvx512, KernelIsa::kNeon};

}  // namespace

const TransformerKernels* PortableTransformerKernels() {
  static const TransformerKernels kernels = TkFill("portable");
  return &kernels;
}

const TransformerKernels* TransformerKernelsFor(KernelIsa isa) {
  if (isa == KernelIsa::kReference || !SupportsKernelIsa(Features(), isa)) return nullptr;
  return PortTransformerKernels(isa, *PortableTransformerKernels());
}

const TransformerKernels* EngineTransformerKernels(KernelIsa isa) {
  if (isa != KernelIsa::kReference) {
    const TransformerKernels* kernels = TransformerKernelsFor(isa);
    return kernels != nullptr ? kernels : PortableTransformerKernels();
  }
  // kReference on a CPU with a family: asked for.
  if (BestKernelIsa(Features()) != KernelIsa::kReference) return nullptr;
  return PortableTransformerKernels();
}

std::vector<const TransformerKernels*> AvailableTransformerKernels() {
  std::vector<const TransformerKernels*> variants = {PortableTransformerKernels()};
  for (KernelIsa isa : kPortIsas) {
    const TransformerKernels* kernels = TransformerKernelsFor(isa);
    if (kernels != nullptr) variants.push_back(kernels);
  }
  return variants;
}

}  // namespace ops
}  // namespace mace
