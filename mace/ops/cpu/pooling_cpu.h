// The CPU kernel of Pooling (mace/ops/pooling.h).
#ifndef MACE_OPS_CPU_POOLING_CPU_H_
#define MACE_OPS_CPU_POOLING_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

class BlockedPoolingReader;

std::unique_ptr<Operation> NewPoolingCpu();

// `pooling`, an op NewPoolingCpu made (the registry's CPU float Pooling,
// which a fusion's key names), as the pooling a convolution may absorb.
const BlockedPoolingReader& PoolingCpuReader(const Operation& pooling);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_CPU_H_
