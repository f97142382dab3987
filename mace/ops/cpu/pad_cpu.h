// The CPU kernel of Pad (mace/ops/pad.h).
#ifndef MACE_OPS_CPU_PAD_CPU_H_
#define MACE_OPS_CPU_PAD_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewPadCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_PAD_CPU_H_
