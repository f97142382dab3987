// The CPU kernel of Concat (mace/ops/concat.h).
#ifndef MACE_OPS_CPU_CONCAT_CPU_H_
#define MACE_OPS_CPU_CONCAT_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewConcatCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONCAT_CPU_H_
