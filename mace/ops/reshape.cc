// Reshape: the same elements in row-major order under a new shape. The shape
// comes from the `shape` argument or a constant int32 second input; one entry
// may be -1 (inferred from the element count) and 0 copies the input
// dimension at the same index (ONNX with allowzero = 0). The output aliases the
// input whenever the memory planner allows it, so Reshape usually costs
// nothing. Works on float32 and int32 tensors.
#include <cstring>

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class ReshapeOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() >= 1 && InputSize() <= 2 && OutputSize() == 1,
             "needs inputs [input, optional shape] and one output, got ", InputSize(),
             " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    const Tensor* shape_input = InputSize() > 1 ? Input(1) : nullptr;
    OP_CHECK(HasArg("shape") || shape_input != nullptr,
             "needs the shape argument or a shape input");
    shape_ = GetInts("shape");
    if (shape_input != nullptr) {
      // Output shapes are fixed before the first run, so the shape must be a
      // weight, readable now.
      OP_CHECK(shape_input->dtype() == DT_INT32, "shape input '", shape_input->name(), "' is ",
               DataTypeName(shape_input->dtype()), " but must be int32");
      OP_CHECK(shape_input->is_weight(), "shape input '", shape_input->name(),
               "' must be a constant tensor (a weight)");
      OP_CHECK(shape_input->dim_size() == 1, "shape input '", shape_input->name(), "' has shape ",
               ShapeToString(shape_input->shape()), " but must be 1-D");
      std::vector<int64_t> from_input;
      for (int64_t i = 0; i < shape_input->size(); ++i) {
        from_input.push_back(shape_input->data<int32_t>()[i]);
      }
      OP_CHECK(!HasArg("shape") || shape_ == from_input, "shape argument ", ShapeToString(shape_),
               " disagrees with shape input ", ShapeToString(from_input));
      shape_ = from_input;
    }
    int inferred = 0;
    for (int64_t d : shape_) {
      OP_CHECK(d >= -1, "shape ", ShapeToString(shape_), " has ", d,
               "; entries must be positive, 0 (copy) or -1 (infer)");
      if (d == -1) ++inferred;
    }
    OP_CHECK(inferred <= 1, "shape ", ShapeToString(shape_), " has more than one -1");
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
    const int64_t count = BoundedElementCount(input->shape());
    OP_CHECK(count > 0, "input has shape ", ShapeToString(input->shape()),
             " with a non-positive dimension or more than ", kMaxElements, " elements");
    std::vector<int64_t> output_shape = shape_;
    int infer_at = -1;
    int64_t known = 1;
    for (size_t i = 0; i < output_shape.size(); ++i) {
      if (output_shape[i] == 0) {
        OP_CHECK(static_cast<int>(i) < input->dim_size(), "shape ", ShapeToString(shape_),
                 " copies dimension ", i, " (0) but input shape ", ShapeToString(input->shape()),
                 " has only ", input->dim_size());
        output_shape[i] = input->dim(static_cast<int>(i));
      }
      if (output_shape[i] == -1) {
        infer_at = static_cast<int>(i);
        continue;
      }
      // Stop before `known` could overflow; the count check below reports it.
      if (output_shape[i] > count) {
        known = count + 1;
        break;
      }
      known *= output_shape[i];
      if (known > count) break;
    }
    if (infer_at >= 0 && known <= count && count % known == 0) {
      output_shape[infer_at] = count / known;
    }
    OP_CHECK(BoundedElementCount(output_shape) == count, "cannot reshape input shape ",
             ShapeToString(input->shape()), " (", count, " elements) to ", ShapeToString(shape_));
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
  std::vector<int64_t> shape_;
};

}  // namespace

MaceStatus RegisterReshape(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(RegisterOp<ReshapeOp>(registry, "Reshape", DeviceType::CPU, DT_FLOAT));
  // Shape subgraphs compute in int32.
  return RegisterOp<ReshapeOp>(registry, "Reshape", DeviceType::CPU, DT_INT32);
}

}  // namespace ops
}  // namespace mace
