// The CPU kernels of QuantizeLinear and DequantizeLinear
// (mace/ops/qdq_linear.h).
#ifndef MACE_OPS_CPU_QDQ_LINEAR_CPU_H_
#define MACE_OPS_CPU_QDQ_LINEAR_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewQuantizeLinearCpu();
std::unique_ptr<Operation> NewDequantizeLinearCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_QDQ_LINEAR_CPU_H_
