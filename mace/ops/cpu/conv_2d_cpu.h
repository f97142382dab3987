// The CPU kernel of Conv2D (mace/ops/conv_2d.h).
#ifndef MACE_OPS_CPU_CONV_2D_CPU_H_
#define MACE_OPS_CPU_CONV_2D_CPU_H_

#include <memory>

#include "mace/core/op_registry.h"
#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewConv2DCpu();

// The fusions of the net's layout plan that involve this kernel, on
// channel-blocked tensors: (Conv2D, Pooling), a stem and the windowed
// pooling that alone reads it; (Conv2D, DepthwiseConv2d), a 1x1 expansion
// and the fused depthwise and 1x1 pair that alone reads it; and
// (DepthwiseConv2d, Conv2D), a depthwise layer and the 1x1 that alone reads
// it. Conv2D's library links the other two ops' kernels, so it registers
// all three.
MaceStatus RegisterConv2DCpuFusions(OpRegistry* registry);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_CPU_H_
