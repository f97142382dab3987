// The uint8 CPU kernel of DepthwiseConv2d (mace/ops/depthwise_conv_2d.h): uint8 activations with
// uint8 per-tensor or int8 per-channel weights and an int32 bias, through the reference kernel
// (mace/ops/ref/quantized/conv_2d.h).
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewDepthwiseConv2dUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_H_
