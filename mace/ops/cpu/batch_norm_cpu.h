// The CPU kernel of BatchNorm (mace/ops/batch_norm.h).
#ifndef MACE_OPS_CPU_BATCH_NORM_CPU_H_
#define MACE_OPS_CPU_BATCH_NORM_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewBatchNormCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_BATCH_NORM_CPU_H_
