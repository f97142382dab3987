// The CPU kernel of Identity (mace/ops/identity.h).
#ifndef MACE_OPS_CPU_IDENTITY_CPU_H_
#define MACE_OPS_CPU_IDENTITY_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewIdentityCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_IDENTITY_CPU_H_
