// The CPU kernel of Squeeze (mace/ops/squeeze.h).
#ifndef MACE_OPS_CPU_SQUEEZE_CPU_H_
#define MACE_OPS_CPU_SQUEEZE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSqueezeCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_SQUEEZE_CPU_H_
