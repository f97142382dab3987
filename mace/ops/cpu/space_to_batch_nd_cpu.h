// The CPU kernel of SpaceToBatchND (mace/ops/space_to_batch_nd.h).
#ifndef MACE_OPS_CPU_SPACE_TO_BATCH_ND_CPU_H_
#define MACE_OPS_CPU_SPACE_TO_BATCH_ND_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSpaceToBatchNDCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_SPACE_TO_BATCH_ND_CPU_H_
