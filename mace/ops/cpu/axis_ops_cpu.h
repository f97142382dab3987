// The CPU kernels of Trilu, CumSum, Tile and TopK (mace/ops/axis_ops.h).
#ifndef MACE_OPS_CPU_AXIS_OPS_CPU_H_
#define MACE_OPS_CPU_AXIS_OPS_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewTriluCpu();
std::unique_ptr<Operation> NewCumSumCpu();
std::unique_ptr<Operation> NewTileCpu();
std::unique_ptr<Operation> NewTopKCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_AXIS_OPS_CPU_H_
