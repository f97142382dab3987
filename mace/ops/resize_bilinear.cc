#include "mace/ops/resize_bilinear.h"

#include "mace/ops/cpu/resize_bilinear_cpu.h"
#include "mace/ops/cpu/resize_bilinear_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus ResizeBilinearBase::Init() {
  return ParseResizeInputs(*this, CoordinateMode::HALF_PIXEL, &args_);
}

MaceStatus ResizeBilinearBase::InferShapes() { return InferResizeShapes(this, args_, &params_); }

MaceStatus RegisterResizeBilinear(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("ResizeBilinear", DeviceType::CPU, DT_UINT8, NewResizeBilinearUint8Cpu));
  }
  return registry->Register("ResizeBilinear", DeviceType::CPU, DT_FLOAT, NewResizeBilinearCpu);
}

}  // namespace ops
}  // namespace mace
