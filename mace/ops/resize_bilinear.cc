#include "mace/ops/resize_bilinear.h"

#include "mace/ops/cpu/resize_bilinear_cpu.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {

MaceStatus ResizeBilinearBase::Init() {
  OP_CHECK((InputSize() == 1 || InputSize() == 2) && OutputSize() == 1,
           "needs inputs [input, optional size] and one output, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  return ParseResizeArgs(*this, InputSize() > 1 && Input(1) != nullptr, CoordinateMode::HALF_PIXEL,
                         &args_);
}

MaceStatus ResizeBilinearBase::InferShapes() { return InferResizeShapes(this, args_, &params_); }

MaceStatus RegisterResizeBilinear(OpRegistry* registry) {
  return registry->Register("ResizeBilinear", DeviceType::CPU, DT_FLOAT, NewResizeBilinearCpu);
}

}  // namespace ops
}  // namespace mace
