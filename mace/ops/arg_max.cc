// ArgMax: the int32 index of the largest value along `axis`, following ONNX
// (axis defaults to 0, keepdims to 1, select_last_index picks the last of
// tied maxima). The output is int32 (OutputType); the kernel is registered
// under the net's float32 data type.
#include "mace/ops/ref/arg_max.h"

#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class ArgMaxOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    axis_ = GetInt("axis", 0);
    const int64_t keepdims = GetInt("keepdims", 1);
    OP_CHECK(keepdims == 0 || keepdims == 1, "keepdims must be 0 or 1, got ", keepdims);
    keepdims_ = keepdims == 1;
    const int64_t select_last = GetInt("select_last_index", 0);
    OP_CHECK(select_last == 0 || select_last == 1, "select_last_index must be 0 or 1, got ",
             select_last);
    params_.select_last_index = select_last == 1;
    return MaceStatus();
  }

  // Indices, whatever the input type; Construct refuses another declaration.
  DataType OutputType(int /*index*/) const override { return DT_INT32; }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    const int rank = input->dim_size();
    OP_CHECK(rank >= 1, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 1 or more");
    // The cap also keeps every index below 2^31, so it fits int32.
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
    OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for input shape ",
             ShapeToString(input->shape()));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    params_.outer = params_.inner = 1;
    std::vector<int64_t> output_shape;
    for (int i = 0; i < rank; ++i) {
      if (i < axis) params_.outer *= input->dim(i);
      if (i > axis) params_.inner *= input->dim(i);
      if (i != axis) output_shape.push_back(input->dim(i));
      if (i == axis && keepdims_) output_shape.push_back(1);
    }
    params_.axis_size = input->dim(axis);
    // A rank-1 input without keepdims gives [1], not a rank-0 scalar, as for
    // Reduce.
    if (output_shape.empty()) output_shape.push_back(1);
    Output(0)->Reshape(output_shape);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::ArgMax(params_, Input(0)->data<float>(), Output(0)->mutable_data<int32_t>());
    return MaceStatus();
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
  ref::ArgMaxParams params_;
};

}  // namespace

MaceStatus RegisterArgMax(OpRegistry* registry) {
  return RegisterOp<ArgMaxOp>(registry, "ArgMax", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
