// BatchToSpaceND on NCHW with TensorFlow's batch order: interleaves the
// block_h x block_w phase batches back into planes, then crops them. The
// inverse of SpaceToBatchND, which it follows around dilated convolutions.
#include "mace/ops/ref/batch_to_space_nd.h"

#include <algorithm>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class BatchToSpaceNDOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    const std::vector<int64_t> block = GetInts("block_shape");
    OP_CHECK(block.size() == 2 && std::min(block[0], block[1]) >= 1 &&
                 std::max(block[0], block[1]) <= kMaxElements,
             "block_shape must be two positive integers [block_h, block_w] of at most 2^31, got ",
             ShapeToString(block));
    params_.block_h = block[0];
    params_.block_w = block[1];
    std::vector<int64_t> crops = GetInts("crops");
    if (crops.empty()) crops.assign(4, 0);
    OP_CHECK(crops.size() == 4 && *std::min_element(crops.begin(), crops.end()) >= 0 &&
                 *std::max_element(crops.begin(), crops.end()) <= kMaxElements,
             "crops must be [top, bottom, left, right], each in [0, 2^31], got ",
             ShapeToString(crops));
    crops_ = crops;
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
    const int64_t in_batch = input->dim(0);
    const int64_t bh = params_.block_h, bw = params_.block_w;
    // Both factors are at most in_batch first, so their product cannot
    // overflow; the uncropped output then has exactly the input's elements.
    OP_CHECK(bh <= in_batch && bw <= in_batch && in_batch % (bh * bw) == 0, "block_shape [", bh,
             ", ", bw, "] needs a batch divisible by ", bh, "x", bw, ", got batch ", in_batch);
    const int64_t full_h = input->dim(2) * bh, full_w = input->dim(3) * bw;
    OP_CHECK(crops_[0] + crops_[1] < full_h && crops_[2] + crops_[3] < full_w, "crops ",
             ShapeToString(crops_), " (top, bottom, left, right) leave nothing of the ", full_h,
             "x", full_w, " output");
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

  MaceStatus Run(OpContext* /*context*/) override {
    ref::BatchToSpaceND(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  std::vector<int64_t> crops_;  // top, bottom, left, right
  ref::BatchToSpaceNDParams params_;
};

}  // namespace

MaceStatus RegisterBatchToSpaceND(OpRegistry* registry) {
  return RegisterOp<BatchToSpaceNDOp>(registry, "BatchToSpaceND", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
