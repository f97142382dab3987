// The CPU kernel of Pooling (mace/ops/pooling.h).
#ifndef MACE_OPS_CPU_POOLING_CPU_H_
#define MACE_OPS_CPU_POOLING_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewPoolingCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_CPU_H_
