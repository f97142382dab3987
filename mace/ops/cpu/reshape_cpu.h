// The CPU kernel of Reshape (mace/ops/reshape.h).
#ifndef MACE_OPS_CPU_RESHAPE_CPU_H_
#define MACE_OPS_CPU_RESHAPE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewReshapeCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_RESHAPE_CPU_H_
