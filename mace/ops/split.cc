// Split: cuts one tensor into N >= 1 pieces along one axis, either in equal
// parts or in the sizes the `split` argument lists. The kernel only moves
// bytes, so float32 and int32 tensors go through the same code.
#include "mace/ops/ref/split.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class SplitOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() >= 1, "needs one input and one or more outputs, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    axis_ = GetInt("axis", 1);
    sizes_ = GetInts("split");
    if (!sizes_.empty()) {
      OP_CHECK(static_cast<int>(sizes_.size()) == OutputSize(), "split lists ", sizes_.size(),
               " sizes but the op has ", OutputSize(), " outputs");
      for (int64_t size : sizes_) {
        OP_CHECK(size > 0 && size <= kMaxElements, "split sizes must be in [1, ", kMaxElements,
                 "], got ", size);
      }
    }
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
    OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for input shape ",
             ShapeToString(input->shape()));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const int64_t dim = input->dim(axis);
    std::vector<int64_t> sizes = sizes_;
    if (sizes.empty()) {
      OP_CHECK(dim % OutputSize() == 0, "axis ", axis, " has size ", dim,
               ", which does not split evenly into ", OutputSize(), " outputs");
      sizes.assign(OutputSize(), dim / OutputSize());
    }
    int64_t total = 0;
    // Each size is at most kMaxElements, so the sum stays far from overflow.
    for (int64_t size : sizes) total += size;
    OP_CHECK(total == dim, "split sizes add up to ", total, " but axis ", axis, " of input shape ",
             ShapeToString(input->shape()), " has size ", dim);
    int64_t inner_bytes = DataTypeSize(dtype);
    for (int d = axis + 1; d < rank; ++d) inner_bytes *= input->dim(d);
    params_.outer = 1;
    for (int d = 0; d < axis; ++d) params_.outer *= input->dim(d);
    params_.run_bytes.clear();
    for (int i = 0; i < OutputSize(); ++i) {
      std::vector<int64_t> shape = input->shape();
      shape[axis] = sizes[i];
      Output(i)->Reshape(shape);
      params_.run_bytes.push_back(sizes[i] * inner_bytes);
    }
    output_data_.assign(OutputSize(), nullptr);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    // Buffers are bound after Prepare, so the pointers are gathered here.
    for (int i = 0; i < OutputSize(); ++i) output_data_[i] = Output(i)->raw_mutable_data();
    ref::Split(params_, Input(0)->raw_data(), output_data_.data());
    return MaceStatus();
  }

 private:
  int64_t axis_ = 1;
  std::vector<int64_t> sizes_;  // empty: equal parts
  ref::SplitParams params_;
  std::vector<void*> output_data_;
};

}  // namespace

MaceStatus RegisterSplit(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(RegisterOp<SplitOp>(registry, "Split", DeviceType::CPU, DT_FLOAT));
  // Shape subgraphs compute in int32.
  return RegisterOp<SplitOp>(registry, "Split", DeviceType::CPU, DT_INT32);
}

}  // namespace ops
}  // namespace mace
