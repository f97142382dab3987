// The CPU kernel of Deconv2D (mace/ops/deconv_2d.h).
#ifndef MACE_OPS_CPU_DECONV_2D_CPU_H_
#define MACE_OPS_CPU_DECONV_2D_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewDeconv2DCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DECONV_2D_CPU_H_
