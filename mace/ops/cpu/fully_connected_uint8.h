// The uint8 CPU kernel of FullyConnected (mace/ops/fully_connected.h): uint8 activations with uint8
// per-tensor or int8 per-channel weights and an int32 bias, through the reference kernel
// (mace/ops/ref/quantized/mat_mul.h).
#ifndef MACE_OPS_CPU_FULLY_CONNECTED_UINT8_H_
#define MACE_OPS_CPU_FULLY_CONNECTED_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewFullyConnectedUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_FULLY_CONNECTED_UINT8_H_
