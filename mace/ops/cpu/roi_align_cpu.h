// The CPU kernel of RoiAlign (mace/ops/roi_align.h).
#ifndef MACE_OPS_CPU_ROI_ALIGN_CPU_H_
#define MACE_OPS_CPU_ROI_ALIGN_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewRoiAlignCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ROI_ALIGN_CPU_H_
