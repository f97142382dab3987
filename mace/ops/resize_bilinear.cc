// ResizeBilinear: bilinear up- or down-sampling of NCHW planes. The output
// size and the coordinate mapping are the arguments shared with
// ResizeNearestNeighbor (common/resize_geometry.h). The default mapping is
// half_pixel, which is ONNX's default and PyTorch's align_corners=False.
#include "mace/ops/ref/resize_bilinear.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/resize_geometry.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class ResizeBilinearOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK((InputSize() == 1 || InputSize() == 2) && OutputSize() == 1,
             "needs inputs [input, optional size] and one output, got ", InputSize(),
             " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    return ParseResizeArgs(*this, SizeInput() != nullptr, CoordinateMode::HALF_PIXEL, &args_);
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
    ResizeGeometry geometry;
    MACE_RETURN_IF_ERROR(
        ComputeResizeGeometry(*this, args_, SizeInput(), input->dim(2), input->dim(3), &geometry));
    const std::vector<int64_t> output_shape = {input->dim(0), input->dim(1), geometry.out_h,
                                               geometry.out_w};
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", output_shape));
    params_.batch = input->dim(0);
    params_.channels = input->dim(1);
    params_.in_h = input->dim(2);
    params_.in_w = input->dim(3);
    params_.out_h = geometry.out_h;
    params_.out_w = geometry.out_w;
    params_.mode = args_.mode;
    params_.scale_h = geometry.scale_h;
    params_.scale_w = geometry.scale_w;
    Output(0)->Reshape(output_shape);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::ResizeBilinear(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  const Tensor* SizeInput() const { return InputSize() > 1 ? Input(1) : nullptr; }

  ResizeArgs args_;
  ref::ResizeBilinearParams params_;
};

}  // namespace

MaceStatus RegisterResizeBilinear(OpRegistry* registry) {
  return RegisterOp<ResizeBilinearOp>(registry, "ResizeBilinear", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
