// SpaceToDepth on NCHW: folds block x block spatial tiles into channels, the
// inverse of DepthToSpace. The default DCR order is TensorFlow's and ONNX's;
// CRD inverts DepthToSpace in CRD mode.
#include "mace/ops/ref/space_to_depth.h"

#include <string>

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class SpaceToDepthOp : public Operation {
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

  MaceStatus Run(OpContext* /*context*/) override {
    ref::SpaceToDepth(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  ref::SpaceToDepthParams params_;
};

}  // namespace

MaceStatus RegisterSpaceToDepth(OpRegistry* registry) {
  return RegisterOp<SpaceToDepthOp>(registry, "SpaceToDepth", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
