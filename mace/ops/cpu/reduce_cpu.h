// The CPU kernel of Reduce (mace/ops/reduce.h).
#ifndef MACE_OPS_CPU_REDUCE_CPU_H_
#define MACE_OPS_CPU_REDUCE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewReduceCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_REDUCE_CPU_H_
