// The CPU kernel of Slice (mace/ops/slice.h).
#ifndef MACE_OPS_CPU_SLICE_CPU_H_
#define MACE_OPS_CPU_SLICE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSliceCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_SLICE_CPU_H_
