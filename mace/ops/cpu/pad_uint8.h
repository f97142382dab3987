// The uint8 CPU kernel of Pad (mace/ops/pad.h): the output keeps the
// input's quantization, and constant padding holds the constant quantized
// with it (the zero point for the usual 0).
#ifndef MACE_OPS_CPU_PAD_UINT8_H_
#define MACE_OPS_CPU_PAD_UINT8_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewPadUint8Cpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_PAD_UINT8_H_
