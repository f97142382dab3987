#include "mace/ops/space_to_batch_nd.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/rearrange_args.h"
#include "mace/ops/cpu/space_to_batch_nd_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus SpaceToBatchNDBase::Init() {
  return ParseBlockShapeArgs(*this, "paddings", &params_.block_h, &params_.block_w, &pads_);
}

MaceStatus SpaceToBatchNDBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckNchwInput(*this));
  // Each term is at most 2^31, so the sums cannot overflow.
  const int64_t padded_h = input->dim(2) + pads_[0] + pads_[1];
  const int64_t padded_w = input->dim(3) + pads_[2] + pads_[3];
  OP_CHECK(padded_h % params_.block_h == 0 && padded_w % params_.block_w == 0,
           "the padded input is ", padded_h, "x", padded_w, ", which block_shape [",
           params_.block_h, ", ", params_.block_w, "] does not divide");
  params_.batch = input->dim(0);
  params_.channels = input->dim(1);
  params_.in_h = input->dim(2);
  params_.in_w = input->dim(3);
  params_.pad_top = pads_[0];
  params_.pad_left = pads_[2];
  params_.out_h = padded_h / params_.block_h;
  params_.out_w = padded_w / params_.block_w;
  // Checked as factors: the padding alone can push the total past the cap.
  OP_CHECK(BoundedElementCount({params_.batch, params_.block_h, params_.block_w, params_.channels,
                                params_.out_h, params_.out_w}) >= 0,
           "the padded output would have more than 2^31 elements");
  Output(0)->Reshape({params_.batch * params_.block_h * params_.block_w, params_.channels,
                      params_.out_h, params_.out_w});
  return MaceStatus();
}

MaceStatus RegisterSpaceToBatchND(OpRegistry* registry) {
  return registry->Register("SpaceToBatchND", DeviceType::CPU, DT_FLOAT, NewSpaceToBatchNDCpu);
}

}  // namespace ops
}  // namespace mace
