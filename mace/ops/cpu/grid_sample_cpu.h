// The CPU kernel of GridSample (mace/ops/grid_sample.h).
#ifndef MACE_OPS_CPU_GRID_SAMPLE_CPU_H_
#define MACE_OPS_CPU_GRID_SAMPLE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewGridSampleCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_GRID_SAMPLE_CPU_H_
