#include "mace/ops/depth_to_space.h"

#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/rearrange_args.h"
#include "mace/ops/cpu/depth_to_space_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus DepthToSpaceBase::Init() {
  return ParseBlockSizeArgs(*this, &params_.block, &params_.crd);
}

MaceStatus DepthToSpaceBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckNchwInput(*this));
  const int64_t b = params_.block;
  const int64_t channels = input->dim(1);
  // b <= channels first, so b * b cannot overflow.
  OP_CHECK(b <= channels && channels % (b * b) == 0, "block_size ", b, " squared (", b, "x", b,
           ") must divide the ", channels, " input channels");
  params_.batch = input->dim(0);
  params_.in_channels = channels;
  params_.in_h = input->dim(2);
  params_.in_w = input->dim(3);
  // Same element count as the input, so every dimension is in range.
  Output(0)->Reshape({params_.batch, channels / (b * b), params_.in_h * b, params_.in_w * b});
  return MaceStatus();
}

MaceStatus RegisterDepthToSpace(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("DepthToSpace", DeviceType::CPU, DT_UINT8, NewDepthToSpaceUint8Cpu));
  }
  return registry->Register("DepthToSpace", DeviceType::CPU, DT_FLOAT, NewDepthToSpaceCpu);
}

}  // namespace ops
}  // namespace mace
