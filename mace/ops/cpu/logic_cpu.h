// The CPU kernels of Compare, Mod and Where (mace/ops/logic.h).
#ifndef MACE_OPS_CPU_LOGIC_CPU_H_
#define MACE_OPS_CPU_LOGIC_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewCompareCpu();
std::unique_ptr<Operation> NewModCpu();
std::unique_ptr<Operation> NewWhereCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_LOGIC_CPU_H_
