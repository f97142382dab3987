// The CPU kernel of LocalResponseNorm (mace/ops/local_response_norm.h).
#ifndef MACE_OPS_CPU_LOCAL_RESPONSE_NORM_CPU_H_
#define MACE_OPS_CPU_LOCAL_RESPONSE_NORM_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewLocalResponseNormCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_LOCAL_RESPONSE_NORM_CPU_H_
