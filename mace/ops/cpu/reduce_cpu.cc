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
#include "mace/ops/reduce.h"

namespace mace {
namespace ops {
namespace {

#if defined(__ARM_NEON) && !defined(__aarch64__)
// armv7: the sum below (four double accumulators, the same adds in the
// same order), with four values in one vld1, each widened and added in its
// register: 11 instructions per 4 values. GCC kept the four sums in memory
// across a 64-bit loop, about 10 instructions a value (ShuffleNet v2's
// global average pooling, 1024 runs of 49, took 0.48 M).
double Armv7SumRun(const float* values, int64_t run) {
  double sums[4] = {0.0, 0.0, 0.0, 0.0};
  int quads = static_cast<int>(run >> 2);
  if (quads > 0) {
    __asm__ volatile(
        "vmov.i64 d16, #0\n"
        "vmov.i64 d17, #0\n"
        "vmov.i64 d18, #0\n"
        "vmov.i64 d19, #0\n"
        "1:\n"
        "vld1.32 {d0-d1}, [%[p]]!\n"
        "vcvt.f64.f32 d4, s0\n"
        "vcvt.f64.f32 d5, s1\n"
        "vcvt.f64.f32 d6, s2\n"
        "vcvt.f64.f32 d7, s3\n"
        "vadd.f64 d16, d16, d4\n"
        "vadd.f64 d17, d17, d5\n"
        "vadd.f64 d18, d18, d6\n"
        "vadd.f64 d19, d19, d7\n"
        "subs %[n], %[n], #1\n"
        "bne 1b\n"
        "vst1.64 {d16-d19}, [%[sums]]\n"
        : [p] "+r"(values), [n] "+r"(quads)
        : [sums] "r"(sums)
        : "cc", "memory", "d0", "d1", "d4", "d5", "d6", "d7", "d16", "d17", "d18", "d19");
  }
  for (int r = static_cast<int>(run & 3); r > 0; --r) sums[0] += *values++;
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
}
#endif

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
#if defined(__ARM_NEON) && !defined(__aarch64__)
      double sum = Armv7SumRun(values, run);
#else
      // Four double accumulators: the adds overlap instead of waiting on one
      // another, and double keeps the sum as exact as the reference's.
      double sums[4] = {0.0, 0.0, 0.0, 0.0};
      int64_t r = 0;
      for (; r + 4 <= run; r += 4) {
        for (int j = 0; j < 4; ++j) sums[j] += values[r + j];
      }
      for (; r < run; ++r) sums[0] += values[r];
      double sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
#endif
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
