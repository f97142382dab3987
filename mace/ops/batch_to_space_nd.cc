#include "mace/ops/batch_to_space_nd.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/rearrange_args.h"
#include "mace/ops/cpu/batch_to_space_nd_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus BatchToSpaceNDBase::Init() {
  return ParseBlockShapeArgs(*this, "crops", &params_.block_h, &params_.block_w, &crops_);
}

MaceStatus BatchToSpaceNDBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckNchwInput(*this));
  const int64_t in_batch = input->dim(0);
  const int64_t bh = params_.block_h, bw = params_.block_w;
  // Both factors are at most in_batch first, so their product cannot
  // overflow; the uncropped output then has exactly the input's elements.
  OP_CHECK(bh <= in_batch && bw <= in_batch && in_batch % (bh * bw) == 0, "block_shape [", bh, ", ",
           bw, "] needs a batch divisible by ", bh, "x", bw, ", got batch ", in_batch);
  const int64_t full_h = input->dim(2) * bh, full_w = input->dim(3) * bw;
  OP_CHECK(crops_[0] + crops_[1] < full_h && crops_[2] + crops_[3] < full_w, "crops ",
           ShapeToString(crops_), " (top, bottom, left, right) leave nothing of the ", full_h, "x",
           full_w, " output");
  params_.in_batch = in_batch;
  params_.channels = input->dim(1);
  params_.in_h = input->dim(2);
  params_.in_w = input->dim(3);
  params_.crop_top = crops_[0];
  params_.crop_left = crops_[2];
  params_.out_h = full_h - crops_[0] - crops_[1];
  params_.out_w = full_w - crops_[2] - crops_[3];
  Output(0)->Reshape({in_batch / (bh * bw), params_.channels, params_.out_h, params_.out_w});
  return MaceStatus();
}

MaceStatus RegisterBatchToSpaceND(OpRegistry* registry) {
  return registry->Register("BatchToSpaceND", DeviceType::CPU, DT_FLOAT, NewBatchToSpaceNDCpu);
}

}  // namespace ops
}  // namespace mace
