// The CPU kernel of Unary (mace/ops/unary.h).
#ifndef MACE_OPS_CPU_UNARY_CPU_H_
#define MACE_OPS_CPU_UNARY_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewUnaryCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_UNARY_CPU_H_
