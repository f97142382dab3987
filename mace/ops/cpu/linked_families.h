// Which optional CPU kernel families this build links, as compile-time
// constants for the ops' drivers. mace/ops/BUILD.bazel compiles the op
// libraries with MACE_CPU_KERNELS_<FAMILY>=0 for a family the build leaves
// out (--define=mace_cpu_kernels_<family>=off). A left-out family's kernels
// are null at run time anyway, and the drivers fall back; with these
// constants a driver also skips the code of its paths that only that
// family's kernels run (blocked layout, Winograd, half-precision pooling),
// so the linker leaves that code out too.
//
// Only the op libraries in FAMILY_DRIVER_OPS (mace/ops/BUILD.bazel) get the
// defines: include this from their .cc files only, never from a header
// that other libraries include.
#ifndef MACE_OPS_CPU_LINKED_FAMILIES_H_
#define MACE_OPS_CPU_LINKED_FAMILIES_H_

#ifndef MACE_CPU_KERNELS_BLOCKED
#define MACE_CPU_KERNELS_BLOCKED 1
#endif
#ifndef MACE_CPU_KERNELS_WINOGRAD
#define MACE_CPU_KERNELS_WINOGRAD 1
#endif
#ifndef MACE_CPU_KERNELS_FP16
#define MACE_CPU_KERNELS_FP16 1
#endif

namespace mace {
namespace ops {

inline constexpr bool kLinksBlockedKernels = MACE_CPU_KERNELS_BLOCKED != 0;
inline constexpr bool kLinksWinogradKernels = MACE_CPU_KERNELS_WINOGRAD != 0;
inline constexpr bool kLinksFp16Kernels = MACE_CPU_KERNELS_FP16 != 0;

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_LINKED_FAMILIES_H_
