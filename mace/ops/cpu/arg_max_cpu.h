// The CPU kernel of ArgMax (mace/ops/arg_max.h).
#ifndef MACE_OPS_CPU_ARG_MAX_CPU_H_
#define MACE_OPS_CPU_ARG_MAX_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewArgMaxCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ARG_MAX_CPU_H_
