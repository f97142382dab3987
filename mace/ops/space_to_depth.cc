#include "mace/ops/space_to_depth.h"

#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/rearrange_args.h"
#include "mace/ops/cpu/space_to_depth_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus SpaceToDepthBase::Init() {
  return ParseBlockSizeArgs(*this, &params_.block, &params_.crd);
}

MaceStatus SpaceToDepthBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckNchwInput(*this));
  const int64_t b = params_.block;
  OP_CHECK(input->dim(2) % b == 0 && input->dim(3) % b == 0, "block_size ", b,
           " must divide the input height and width, got ", input->dim(2), "x", input->dim(3));
  params_.batch = input->dim(0);
  params_.in_channels = input->dim(1);
  params_.in_h = input->dim(2);
  params_.in_w = input->dim(3);
  // b * b <= in_h * in_w, so the channel count stays within the input's
  // element count.
  Output(0)->Reshape(
      {params_.batch, params_.in_channels * b * b, params_.in_h / b, params_.in_w / b});
  return MaceStatus();
}

MaceStatus RegisterSpaceToDepth(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("SpaceToDepth", DeviceType::CPU, DT_UINT8, NewSpaceToDepthUint8Cpu));
  }
  return registry->Register("SpaceToDepth", DeviceType::CPU, DT_FLOAT, NewSpaceToDepthCpu);
}

}  // namespace ops
}  // namespace mace
