// The CPU kernel of DepthwiseConv2d (mace/ops/depthwise_conv_2d.h).
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_CPU_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewDepthwiseConv2dCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_CPU_H_
