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

#endif  // MACE_OPS_OP_REGISTRATION_H_
