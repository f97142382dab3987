// The CPU kernel of DepthToSpace (mace/ops/depth_to_space.h).
#ifndef MACE_OPS_CPU_DEPTH_TO_SPACE_CPU_H_
#define MACE_OPS_CPU_DEPTH_TO_SPACE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewDepthToSpaceCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTH_TO_SPACE_CPU_H_
