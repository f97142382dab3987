// Transpose: permutes the dimensions of a tensor. Output dimension d is input
// dimension dims[d]; without `dims` (or with an empty list) the order is
// reversed, as in numpy and ONNX. The kernel only moves bytes, so float32 and int32 tensors go
// through the same code.
#include "mace/ops/ref/transpose.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class TransposeOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    // An empty list counts as absent, like a missing ONNX perm.
    dims_ = GetInts("dims");
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
    std::vector<int64_t> perm;
    if (!dims_.empty()) {
      OP_CHECK(static_cast<int>(dims_.size()) == rank, "dims ", ShapeToString(dims_), " has ",
               dims_.size(), " entries but the input has shape ", ShapeToString(input->shape()));
      std::vector<bool> seen(rank, false);
      for (int64_t d : dims_) {
        OP_CHECK(d >= -rank && d < rank, "dims ", ShapeToString(dims_),
                 " is not a permutation: ", d, " is out of range for rank ", rank);
        if (d < 0) d += rank;
        OP_CHECK(!seen[d], "dims ", ShapeToString(dims_), " is not a permutation: dimension ", d,
                 " appears twice");
        seen[d] = true;
        perm.push_back(d);
      }
    } else {
      for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
    }
    std::vector<int64_t> output_shape;
    for (int64_t d : perm) output_shape.push_back(input->dim(static_cast<int>(d)));
    params_.element_size = DataTypeSize(dtype);
    params_.input_shape = input->shape();
    params_.perm = perm;
    Output(0)->Reshape(output_shape);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::Transpose(params_, Input(0)->raw_data(), Output(0)->raw_mutable_data());
    return MaceStatus();
  }

 private:
  std::vector<int64_t> dims_;
  ref::TransposeParams params_;
};

}  // namespace

MaceStatus RegisterTranspose(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(RegisterOp<TransposeOp>(registry, "Transpose", DeviceType::CPU, DT_FLOAT));
  // Shape subgraphs compute in int32.
  return RegisterOp<TransposeOp>(registry, "Transpose", DeviceType::CPU, DT_INT32);
}

}  // namespace ops
}  // namespace mace
