// The CPU kernel of Quantize (mace/ops/quantize.h).
#ifndef MACE_OPS_CPU_QUANTIZE_CPU_H_
#define MACE_OPS_CPU_QUANTIZE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewQuantizeCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_QUANTIZE_CPU_H_
