// The CPU kernel of Eltwise (mace/ops/eltwise.h).
#ifndef MACE_OPS_CPU_ELTWISE_CPU_H_
#define MACE_OPS_CPU_ELTWISE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewEltwiseCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ELTWISE_CPU_H_
