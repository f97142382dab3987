// SpaceToBatchND on NCHW with TensorFlow's batch order: pads H and W, then
// moves each of the block_h x block_w pixel phases into its own batch.
// Converters pair it with BatchToSpaceND to run a dilated (atrous)
// convolution as a plain one on the phases.
#include "mace/ops/ref/space_to_batch_nd.h"

#include <algorithm>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class SpaceToBatchNDOp : public Operation {
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
    std::vector<int64_t> pads = GetInts("paddings");
    if (pads.empty()) pads.assign(4, 0);
    OP_CHECK(pads.size() == 4 && *std::min_element(pads.begin(), pads.end()) >= 0 &&
                 *std::max_element(pads.begin(), pads.end()) <= kMaxElements,
             "paddings must be [top, bottom, left, right], each in [0, 2^31], got ",
             ShapeToString(pads));
    pads_ = pads;
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
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

  MaceStatus Run(OpContext* /*context*/) override {
    ref::SpaceToBatchND(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  std::vector<int64_t> pads_;  // top, bottom, left, right
  ref::SpaceToBatchNDParams params_;
};

}  // namespace

MaceStatus RegisterSpaceToBatchND(OpRegistry* registry) {
  return RegisterOp<SpaceToBatchNDOp>(registry, "SpaceToBatchND", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
