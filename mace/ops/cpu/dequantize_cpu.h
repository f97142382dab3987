// The CPU kernel of Dequantize (mace/ops/dequantize.h).
#ifndef MACE_OPS_CPU_DEQUANTIZE_CPU_H_
#define MACE_OPS_CPU_DEQUANTIZE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewDequantizeCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEQUANTIZE_CPU_H_
