// The CPU kernel of LayerNorm (mace/ops/layer_norm.h).
#ifndef MACE_OPS_CPU_LAYER_NORM_CPU_H_
#define MACE_OPS_CPU_LAYER_NORM_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewLayerNormCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_LAYER_NORM_CPU_H_
