// DepthToSpace on NCHW: moves channel blocks into block x block spatial
// tiles. `mode` picks the channel order: DCR (TensorFlow, ONNX default) or
// CRD (ONNX, PyTorch pixel_shuffle).
#include "mace/ops/ref/depth_to_space.h"

#include <string>

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class DepthToSpaceOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    OP_CHECK(HasArg("block_size"), "block_size is required");
    params_.block = GetInt("block_size", 0);
    OP_CHECK(params_.block >= 1, "block_size must be positive, got ", params_.block);
    const std::string mode = GetString("mode", "DCR");
    OP_CHECK(mode == "DCR" || mode == "CRD", "mode must be DCR or CRD, got '", mode, "'");
    params_.crd = mode == "CRD";
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
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

  MaceStatus Run(OpContext* /*context*/) override {
    ref::DepthToSpace(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  ref::DepthToSpaceParams params_;
};

}  // namespace

MaceStatus RegisterDepthToSpace(OpRegistry* registry) {
  return RegisterOp<DepthToSpaceOp>(registry, "DepthToSpace", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
