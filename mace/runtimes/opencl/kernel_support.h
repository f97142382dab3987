// Argument variants the GPU kernels decline, by op type. Each kernel's
// registration may name a check on the op's definition; OpenCLRuntime::
// Supports asks it, so an op whose arguments its GPU kernel does not handle
// is placed on the CPU instead of failing. Shape limits (image sizes,
// ranks) are OpenCLRuntime::SupportsInputs'.
#ifndef MACE_RUNTIMES_OPENCL_KERNEL_SUPPORT_H_
#define MACE_RUNTIMES_OPENCL_KERNEL_SUPPORT_H_

#include <string>

#include "mace/proto/mace.pb.h"

namespace mace {
namespace opencl {

using KernelSupportCheck = bool (*)(const OperatorDef& def);

// Sets (or replaces) the check of op `type`.
void SetKernelSupportCheck(const std::string& type, KernelSupportCheck check);

// Whether the GPU kernel of def.type() takes `def`: what the type's check
// says; true without a check.
bool KernelSupportsDef(const OperatorDef& def);

// The integer argument `name` of `def`, or `fallback` when absent.
int64_t IntArgOf(const OperatorDef& def, const std::string& name, int64_t fallback);

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_KERNEL_SUPPORT_H_
