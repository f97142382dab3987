// The uint8 CPU kernel of Concat (mace/ops/concat.h): concatenation of uint8
// activations; inputs quantized unlike the output are rescaled to it.
#ifndef MACE_OPS_CPU_CONCAT_UINT8_H_
#define MACE_OPS_CPU_CONCAT_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewConcatUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONCAT_UINT8_H_
