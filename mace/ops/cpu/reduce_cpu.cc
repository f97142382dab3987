// Reduce's CPU kernel. Reducing trailing axes only (global average pooling
// written as ReduceMean over H and W) makes each output a contiguous run of
// the input: those runs are reduced directly, split across the pool, with
// the reference's arithmetic (double accumulators, NaN through MIN and MAX)
// but no per-element index computation. Other axis sets run the reference
// kernel.
#include "mace/ops/cpu/reduce_cpu.h"

#include <cmath>
#include <memory>

#include "mace/ops/common/element_count.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/reduce_sum_run.h"
#include "mace/ops/reduce.h"

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
      double sum = SumRun(values, run);
      if (type == ref::ReduceType::MEAN) sum /= static_cast<double>(run);
      output[o] = static_cast<float>(sum);
    }
  }
}

class ReduceCpu final : public ReduceBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(ReadComputedAxes());
    const float* input = Input(0)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    // Both are parts of the bounded input's shape; a reduced size of 0
    // makes run -1 (no elements), which the reference handles.
    const int64_t runs = BoundedElementCount(params().kept_sizes);
    const int64_t run = BoundedElementCount(params().reduced_sizes);
    if (!trailing() || run <= 0) {
      ref::Reduce(params(), input, output);
      return MaceStatus();
    }
    const ref::ReduceType type = params().type;
    ParallelFor(ContextPool(context), runs, [&](int64_t begin, int64_t end) {
      ReduceRuns(type, input, run, begin, end, output);
    });
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewReduceCpu() { return std::make_unique<ReduceCpu>(); }

}  // namespace ops
}  // namespace mace
