// The uint8 CPU kernel of ResizeBilinear (mace/ops/resize_bilinear.h): bilinear resizing of uint8
// activations; the output keeps the input's quantization.
#ifndef MACE_OPS_CPU_RESIZE_BILINEAR_UINT8_H_
#define MACE_OPS_CPU_RESIZE_BILINEAR_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewResizeBilinearUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_RESIZE_BILINEAR_UINT8_H_
