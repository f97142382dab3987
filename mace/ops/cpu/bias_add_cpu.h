// The CPU kernel of BiasAdd (mace/ops/bias_add.h).
#ifndef MACE_OPS_CPU_BIAS_ADD_CPU_H_
#define MACE_OPS_CPU_BIAS_ADD_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewBiasAddCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_BIAS_ADD_CPU_H_
