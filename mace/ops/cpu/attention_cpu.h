// The CPU kernel of Attention (mace/ops/attention.h).
#ifndef MACE_OPS_CPU_ATTENTION_CPU_H_
#define MACE_OPS_CPU_ATTENTION_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewAttentionCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ATTENTION_CPU_H_
