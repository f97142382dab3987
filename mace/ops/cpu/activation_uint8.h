// The uint8 CPU kernel of Activation (mace/ops/activation.h): RELU, RELU6 and RELUX on uint8
// activations, as a clamp in the quantized domain (where a converter did
// not fold them into the producer's output range). The output keeps the
// input's quantization.
#ifndef MACE_OPS_CPU_ACTIVATION_UINT8_H_
#define MACE_OPS_CPU_ACTIVATION_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewActivationUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ACTIVATION_UINT8_H_
