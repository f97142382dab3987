// The CPU kernel of ResizeBilinear (mace/ops/resize_bilinear.h).
#ifndef MACE_OPS_CPU_RESIZE_BILINEAR_CPU_H_
#define MACE_OPS_CPU_RESIZE_BILINEAR_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewResizeBilinearCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_RESIZE_BILINEAR_CPU_H_
