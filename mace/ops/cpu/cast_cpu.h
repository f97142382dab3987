// The CPU kernel of Cast (mace/ops/cast.h).
#ifndef MACE_OPS_CPU_CAST_CPU_H_
#define MACE_OPS_CPU_CAST_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewCastCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CAST_CPU_H_
