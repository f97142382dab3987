// The CPU kernel of Activation (mace/ops/activation.h).
#ifndef MACE_OPS_CPU_ACTIVATION_CPU_H_
#define MACE_OPS_CPU_ACTIVATION_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewActivationCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ACTIVATION_CPU_H_
