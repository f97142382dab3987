// The CPU kernel of MatMul (mace/ops/mat_mul.h).
#ifndef MACE_OPS_CPU_MAT_MUL_CPU_H_
#define MACE_OPS_CPU_MAT_MUL_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewMatMulCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_MAT_MUL_CPU_H_
