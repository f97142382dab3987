// Dequantize: uint8 in (with its producer's or the model input's scale and
// zero point), float32 out: real = scale * (q - zero_point), the inverse of
// Quantize (mace/ops/quantize.h).
//
// DequantizeBase is the device-neutral part; the CPU kernel is
// mace/ops/cpu/dequantize_cpu.cc. Registered for the float and the uint8 net
// data type, as Quantize.
#ifndef MACE_OPS_DEQUANTIZE_H_
#define MACE_OPS_DEQUANTIZE_H_

#include "mace/core/operation.h"

namespace mace {
namespace ops {

class DequantizeBase : public Operation {
 public:
  MaceStatus Init() override;
  DataType OutputType(int /*index*/) const override { return DT_FLOAT; }

 protected:
  // Checks the input's type and quantization, sets the shape.
  MaceStatus InferShapes();
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_DEQUANTIZE_H_
