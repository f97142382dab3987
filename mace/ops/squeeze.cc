// Squeeze: removes size-1 dimensions, either the ones listed in `axis` or, if
// none are listed, all of them. The data is unchanged, so the output aliases
// the input whenever the memory planner allows it. Works on float32 and int32
// tensors.
#include <cstring>

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class SqueezeOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    axes_ = GetInts("axis");
    return MaceStatus();
  }

  // Data moves unchanged, so the output has the input's type. Construct binds
  // the inputs before it asks.
  DataType OutputType(int /*index*/) const override {
    return InputSize() > 0 && Input(0) != nullptr ? Input(0)->dtype() : kernel_dtype();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    const DataType dtype = input->dtype();
    OP_CHECK(dtype == DT_FLOAT || dtype == DT_INT32, "input is ", DataTypeName(dtype),
             " but must be float32 or int32");
    OP_CHECK(BoundedElementCount(input->shape()) > 0, "input has shape ",
             ShapeToString(input->shape()), " with a non-positive dimension or more than ",
             kMaxElements, " elements");
    const int rank = input->dim_size();
    // An empty list removes every size-1 dimension, as a missing ONNX axes does.
    std::vector<bool> drop(rank, axes_.empty());
    for (int d = 0; d < rank; ++d) drop[d] = drop[d] && input->dim(d) == 1;
    for (int64_t axis : axes_) {
      OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for input shape ",
               ShapeToString(input->shape()));
      if (axis < 0) axis += rank;
      OP_CHECK(!drop[axis], "axis lists dimension ", axis, " more than once");
      OP_CHECK(input->dim(static_cast<int>(axis)) == 1, "dimension ", axis, " of input shape ",
               ShapeToString(input->shape()), " has size ", input->dim(static_cast<int>(axis)),
               ", not 1");
      drop[axis] = true;
    }
    std::vector<int64_t> output_shape;
    for (int d = 0; d < rank; ++d) {
      if (!drop[d]) output_shape.push_back(input->dim(d));
    }
    Output(0)->Reshape(output_shape);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    // An aliased output already holds the data.
    if (Output(0)->raw_data() != Input(0)->raw_data()) {
      std::memcpy(Output(0)->raw_mutable_data(), Input(0)->raw_data(), Input(0)->raw_size());
    }
    return MaceStatus();
  }

  int InPlaceInput() const override { return 0; }

 private:
  std::vector<int64_t> axes_;  // empty: every size-1 dimension
};

}  // namespace

MaceStatus RegisterSqueeze(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(RegisterOp<SqueezeOp>(registry, "Squeeze", DeviceType::CPU, DT_FLOAT));
  // Shape subgraphs compute in int32.
  return RegisterOp<SqueezeOp>(registry, "Squeeze", DeviceType::CPU, DT_INT32);
}

}  // namespace ops
}  // namespace mace
