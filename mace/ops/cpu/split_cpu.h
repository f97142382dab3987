// The CPU kernel of Split (mace/ops/split.h).
#ifndef MACE_OPS_CPU_SPLIT_CPU_H_
#define MACE_OPS_CPU_SPLIT_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSplitCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_SPLIT_CPU_H_
