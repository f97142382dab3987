// The CPU kernel of Softmax (mace/ops/softmax.h).
#ifndef MACE_OPS_CPU_SOFTMAX_CPU_H_
#define MACE_OPS_CPU_SOFTMAX_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSoftmaxCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_SOFTMAX_CPU_H_
