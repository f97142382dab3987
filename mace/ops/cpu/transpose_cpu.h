// The CPU kernel of Transpose (mace/ops/transpose.h).
#ifndef MACE_OPS_CPU_TRANSPOSE_CPU_H_
#define MACE_OPS_CPU_TRANSPOSE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewTransposeCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_TRANSPOSE_CPU_H_
