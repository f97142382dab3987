// The uint8 CPU kernel of Softmax (mace/ops/softmax.h): softmax of uint8 activations into an
// output quantized with scale 1/256 and zero point 0.
#ifndef MACE_OPS_CPU_SOFTMAX_UINT8_H_
#define MACE_OPS_CPU_SOFTMAX_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSoftmaxUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_SOFTMAX_UINT8_H_
