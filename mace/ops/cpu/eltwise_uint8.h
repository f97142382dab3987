// The uint8 CPU kernel of Eltwise (mace/ops/eltwise.h): add, subtract and multiply of uint8
// activations with rescaling to the output's quantization; other types
// are refused.
#ifndef MACE_OPS_CPU_ELTWISE_UINT8_H_
#define MACE_OPS_CPU_ELTWISE_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewEltwiseUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ELTWISE_UINT8_H_
