// The CPU kernel of BatchToSpaceND (mace/ops/batch_to_space_nd.h).
#ifndef MACE_OPS_CPU_BATCH_TO_SPACE_ND_CPU_H_
#define MACE_OPS_CPU_BATCH_TO_SPACE_ND_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewBatchToSpaceNDCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_BATCH_TO_SPACE_ND_CPU_H_
