// The CPU kernel of Resize (mace/ops/resize_nd.h).
#ifndef MACE_OPS_CPU_RESIZE_ND_CPU_H_
#define MACE_OPS_CPU_RESIZE_ND_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewResizeCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_RESIZE_ND_CPU_H_
