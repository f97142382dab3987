// The CPU kernel of Conv2D (mace/ops/conv_2d.h).
#ifndef MACE_OPS_CPU_CONV_2D_CPU_H_
#define MACE_OPS_CPU_CONV_2D_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewConv2DCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_CPU_H_
