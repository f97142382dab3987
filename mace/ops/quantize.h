// Quantize: float32 in, uint8 out, with the output's scale and zero point
// from the op's quantize_info (mace/ops/common/quantize.h has the rounding).
// Dequantize (mace/ops/dequantize.h) is its inverse. They sit at the edges
// of a uint8 graph so that the app can still feed and read float.
//
// QuantizeBase is the device-neutral part: one input, one output, shapes and
// the output's quantization; the CPU kernel is mace/ops/cpu/quantize_cpu.cc.
// Both are registered for the float and the uint8 net data type, so that the
// op needs no "T" argument in either kind of net.
#ifndef MACE_OPS_QUANTIZE_H_
#define MACE_OPS_QUANTIZE_H_

#include "mace/core/operation.h"

namespace mace {
namespace ops {

class QuantizeBase : public Operation {
 public:
  MaceStatus Init() override;
  DataType OutputType(int /*index*/) const override { return DT_UINT8; }

 protected:
  // Checks the input type and the output's quantization, sets the shape.
  MaceStatus InferShapes();
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_QUANTIZE_H_
