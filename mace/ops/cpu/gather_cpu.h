// The CPU kernels of the indexing ops (mace/ops/gather.h).
#ifndef MACE_OPS_CPU_GATHER_CPU_H_
#define MACE_OPS_CPU_GATHER_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewGatherCpu();
std::unique_ptr<Operation> NewGatherDequantizeCpu();
std::unique_ptr<Operation> NewGatherElementsCpu();
std::unique_ptr<Operation> NewGatherNdCpu();
std::unique_ptr<Operation> NewScatterElementsCpu();
std::unique_ptr<Operation> NewScatterNdCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_GATHER_CPU_H_
