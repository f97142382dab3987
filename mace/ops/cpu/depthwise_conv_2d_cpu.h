// The CPU kernel of DepthwiseConv2d (mace/ops/depthwise_conv_2d.h).
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_CPU_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

class BlockedDepthwisePointwiseReader;
class BlockedPointwiseReader;

std::unique_ptr<Operation> NewDepthwiseConv2dCpu();

// `depthwise`, an op NewDepthwiseConv2dCpu made (the registry's CPU float
// DepthwiseConv2d, which a fusion's key names), as the fused depthwise and
// 1x1 pair a 1x1 expansion may absorb.
const BlockedDepthwisePointwiseReader& DepthwiseConv2dCpuPair(const Operation& depthwise);

// The fusion of `depthwise` (an op NewDepthwiseConv2dCpu made) with
// `reader`, the 1x1 convolution that alone reads its output, whose kernel
// `pointwise` is: whether the depthwise op absorbed it (a blocked 1x1,
// stride 1, the fused kernel's activations, over the whole output of a map
// large enough for the fused kernel to gain, constant filters and biases).
bool AbsorbPointwiseReader(Operation* depthwise, const Operation& reader,
                           const BlockedPointwiseReader& pointwise);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_CPU_H_
