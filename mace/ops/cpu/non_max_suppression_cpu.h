// The CPU kernel of NonMaxSuppression (mace/ops/non_max_suppression.h).
#ifndef MACE_OPS_CPU_NON_MAX_SUPPRESSION_CPU_H_
#define MACE_OPS_CPU_NON_MAX_SUPPRESSION_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewNonMaxSuppressionCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_NON_MAX_SUPPRESSION_CPU_H_
