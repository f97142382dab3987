// The CPU kernel of Dropout (mace/ops/dropout.h).
#ifndef MACE_OPS_CPU_DROPOUT_CPU_H_
#define MACE_OPS_CPU_DROPOUT_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewDropoutCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DROPOUT_CPU_H_
