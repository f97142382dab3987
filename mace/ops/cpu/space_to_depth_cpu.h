// The CPU kernel of SpaceToDepth (mace/ops/space_to_depth.h).
#ifndef MACE_OPS_CPU_SPACE_TO_DEPTH_CPU_H_
#define MACE_OPS_CPU_SPACE_TO_DEPTH_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSpaceToDepthCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_SPACE_TO_DEPTH_CPU_H_
