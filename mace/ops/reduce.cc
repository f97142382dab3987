// Reduce: MEAN, MIN, MAX, PROD or SUM over the axes listed in `axis` (all of
// them when empty), keeping reduced axes as size 1 unless keepdims is 0. Axes
// index the tensor as stored (NCHW for activations). A result that would
// have no dimensions left is shaped [1].
//
// Reducing trailing axes only (global average pooling written as ReduceMean
// over H and W) makes each output a contiguous run of the input: those runs
// are reduced directly, split across the pool, with the reference's
// arithmetic (double accumulators, NaN through MIN and MAX) but no per-element
// index computation. Other axis sets run the reference kernel.
#include "mace/ops/ref/reduce.h"

#include <cmath>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

// output[o] for o in [first, last) reduces input[o * run, (o + 1) * run).
void ReduceRuns(ref::ReduceType type, const float* input, int64_t run, int64_t first, int64_t last,
                float* output) {
  for (int64_t o = first; o < last; ++o) {
    const float* values = input + o * run;
    if (type == ref::ReduceType::MIN || type == ref::ReduceType::MAX) {
      float best = values[0];
      for (int64_t r = 1; r < run; ++r) {
        const float v = values[r];
        const bool better = type == ref::ReduceType::MIN ? v < best : v > best;
        if (std::isnan(v) || better) best = v;
      }
      output[o] = best;
    } else if (type == ref::ReduceType::PROD) {
      double product = 1.0;
      for (int64_t r = 0; r < run; ++r) product *= values[r];
      output[o] = static_cast<float>(product);
    } else {
      // Four double accumulators: the adds overlap instead of waiting on one
      // another, and double keeps the sum as exact as the reference's.
      double sums[4] = {0.0, 0.0, 0.0, 0.0};
      int64_t r = 0;
      for (; r + 4 <= run; r += 4) {
        for (int j = 0; j < 4; ++j) sums[j] += values[r + j];
      }
      for (; r < run; ++r) sums[0] += values[r];
      double sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
      if (type == ref::ReduceType::MEAN) sum /= static_cast<double>(run);
      output[o] = static_cast<float>(sum);
    }
  }
}

class ReduceOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    const int64_t type = GetInt("reduce_type", 0);
    OP_CHECK(type >= 0 && type <= 4,
             "reduce_type must be 0 (MEAN), 1 (MIN), 2 (MAX), 3 (PROD) or 4 (SUM), got ", type);
    params_.type = static_cast<ref::ReduceType>(type);
    const int64_t keepdims = GetInt("keepdims", 1);
    OP_CHECK(keepdims == 0 || keepdims == 1, "keepdims must be 0 or 1, got ", keepdims);
    keepdims_ = keepdims == 1;
    axes_ = GetInts("axis");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
    const int rank = input->dim_size();
    // Axes are checked here because their valid range depends on the rank.
    std::vector<bool> reduced(rank, axes_.empty());
    for (int64_t axis : axes_) {
      OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for input shape ",
               ShapeToString(input->shape()));
      const int64_t index = axis < 0 ? axis + rank : axis;
      OP_CHECK(!reduced[index], "axis ", axis, " is listed twice in ", ShapeToString(axes_));
      reduced[index] = true;
    }
    params_.kept_sizes.clear();
    params_.kept_strides.clear();
    params_.reduced_sizes.clear();
    params_.reduced_strides.clear();
    std::vector<int64_t> output_shape;
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int64_t d = input->dim(i);
      if (reduced[i]) {
        params_.reduced_sizes.insert(params_.reduced_sizes.begin(), d);
        params_.reduced_strides.insert(params_.reduced_strides.begin(), stride);
        if (keepdims_) output_shape.insert(output_shape.begin(), 1);
      } else {
        params_.kept_sizes.insert(params_.kept_sizes.begin(), d);
        params_.kept_strides.insert(params_.kept_strides.begin(), stride);
        output_shape.insert(output_shape.begin(), d);
      }
      stride *= d;
    }
    // MACE tensors have rank 1 or more: a full reduction without keepdims is
    // [1], not a rank-0 scalar (the converter's shape rules agree).
    if (output_shape.empty()) output_shape.push_back(1);
    Output(0)->Reshape(output_shape);
    // Reduced axes all after the kept ones: each output is a contiguous run.
    trailing_ = true;
    for (int i = 1; i < rank; ++i) trailing_ = trailing_ && !(reduced[i - 1] && !reduced[i]);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const float* input = Input(0)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    if (!trailing_) {
      ref::Reduce(params_, input, output);
      return MaceStatus();
    }
    int64_t runs = 1, run = 1;
    for (int64_t d : params_.kept_sizes) runs *= d;
    for (int64_t d : params_.reduced_sizes) run *= d;
    ParallelFor(ContextPool(context), runs, [&](int64_t begin, int64_t end) {
      ReduceRuns(params_.type, input, run, begin, end, output);
    });
    return MaceStatus();
  }

 private:
  std::vector<int64_t> axes_;
  bool keepdims_ = true;
  ref::ReduceParams params_;
  bool trailing_ = false;  // only trailing axes are reduced
};

}  // namespace

MaceStatus RegisterReduce(OpRegistry* registry) {
  return RegisterOp<ReduceOp>(registry, "Reduce", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
