// The uint8 CPU kernel of MatMul (mace/ops/mat_mul.h): uint8 activations and operands, no bias,
// through the reference kernel (mace/ops/ref/quantized/mat_mul.h).
#ifndef MACE_OPS_CPU_MAT_MUL_UINT8_H_
#define MACE_OPS_CPU_MAT_MUL_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewMatMulUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_MAT_MUL_UINT8_H_
