// What an op's file includes to register its kernels: the op registry and
// the storage converters' registry. The op's Register function is declared
// in registry.h, which only the registries and tests include (the Bazel
// library registry_decls), so that adding an op rebuilds no other op; a
// Register function whose signature differs from its declaration there
// fails at the registry's link.
#ifndef MACE_OPS_OP_REGISTRATION_H_
#define MACE_OPS_OP_REGISTRATION_H_

#include "mace/core/converter_registry.h"
#include "mace/core/op_registry.h"

// Whether the ops register their uint8 and int8 kernels. A build for float
// models only (--define=mace_integer_kernels=off, mace/ops/BUILD.bazel;
// tools/converter.py passes it to a model-specific library whose models run
// no integer kernel) compiles the ops with MACE_INTEGER_KERNELS=0: their
// Register functions then name no integer kernel, and the linker leaves
// those kernels out.
#ifndef MACE_INTEGER_KERNELS
#define MACE_INTEGER_KERNELS 1
#endif

namespace mace {
namespace ops {

inline constexpr bool kIntegerKernels = MACE_INTEGER_KERNELS != 0;

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_OP_REGISTRATION_H_
