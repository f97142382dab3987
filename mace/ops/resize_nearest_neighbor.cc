// ResizeNearestNeighbor: nearest-pixel up- or down-sampling of NCHW planes.
// The output size and the coordinate mapping are the arguments shared with
// ResizeBilinear (common/resize_geometry.h). The default mapping is
// asymmetric (TensorFlow's legacy one); nearest_mode picks the rounding.
#include "mace/ops/ref/resize_nearest_neighbor.h"

#include <string>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/resize_geometry.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class ResizeNearestNeighborOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK((InputSize() == 1 || InputSize() == 2) && OutputSize() == 1,
             "needs inputs [input, optional size] and one output, got ", InputSize(),
             " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    MACE_RETURN_IF_ERROR(
        ParseResizeArgs(*this, SizeInput() != nullptr, CoordinateMode::ASYMMETRIC, &args_));
    const std::string nearest_mode = GetString("nearest_mode", "round_prefer_floor");
    if (nearest_mode == "round_prefer_floor") {
      params_.nearest_mode = ref::NearestMode::ROUND_PREFER_FLOOR;
    } else if (nearest_mode == "round_prefer_ceil") {
      params_.nearest_mode = ref::NearestMode::ROUND_PREFER_CEIL;
    } else if (nearest_mode == "floor") {
      params_.nearest_mode = ref::NearestMode::FLOOR;
    } else if (nearest_mode == "ceil") {
      params_.nearest_mode = ref::NearestMode::CEIL;
    } else {
      return Invalid(StrCat("unknown nearest_mode '", nearest_mode,
                            "' (expected round_prefer_floor, round_prefer_ceil, floor or ceil)"));
    }
    return MaceStatus();
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
    ref::ResizeNearestNeighbor(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  const Tensor* SizeInput() const { return InputSize() > 1 ? Input(1) : nullptr; }

  ResizeArgs args_;
  ref::ResizeNearestNeighborParams params_;
};

}  // namespace

MaceStatus RegisterResizeNearestNeighbor(OpRegistry* registry) {
  return RegisterOp<ResizeNearestNeighborOp>(registry, "ResizeNearestNeighbor", DeviceType::CPU,
                                             DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
