// QuantizeLinear's and DequantizeLinear's CPU kernels. Per-tensor and
// per-axis scales to and from the integer types take a fast path: runs of
// elements that share a scale, in blocks of fixed width the compiler
// vectorizes, split over the pool. Its results equal the reference
// kernels' (mace/ops/ref/qdq_linear.h) bit for bit:
// - QuantizeLinear clamps x / scale to [low - zp, high - zp] before it
//   rounds, which commutes with the reference's rounding first because both
//   bounds are integers; it rounds ties to even by adding and subtracting
//   1.5 * 2^23, exact for values below 2^22 in magnitude, which the clamp
//   ensures when |zp| <= 2^16. Zero points that are not such integers, the
//   float8 types and blocked scales take the reference kernel.
// - DequantizeLinear computes (x - zp) * scale in double, as the reference.
// - QuantizeLinear with dequantize runs the transformer kernels'
//   fake_quantize (the same clamp and rounding, in the engine's vectors),
//   which multiplies the rounded quotient (the integer minus the zero
//   point) by the scale in float: the double product of two floats that
//   the reference rounds is exact, so one float product rounds the same.
#include "mace/ops/cpu/qdq_linear_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/qdq_linear.h"

namespace mace {
namespace ops {
namespace {

constexpr int kLanes = 8;
// Adding and subtracting it rounds a float below 2^22 in magnitude to an
// integer, ties to even (in the default rounding mode).
constexpr float kRounder = 12582912.f;
constexpr float kLargestZeroPoint = 65536.f;

// x / scale clamped to [lo, hi] (NaN to 0, which gives the zero point) and
// rounded to an integer: the quantized value minus the zero point.
inline float RoundedQuotient(float x, float scale, float lo, float hi) {
  float q = x / scale;
  q = q == q ? q : 0.f;
  q = std::min(std::max(q, lo), hi);
  return (q + kRounder) - kRounder;
}

// y[i] = one(x[i]) in blocks of kLanes the compiler vectorizes, then the
// tail.
template <typename One>
void MapRun(const float* x, int64_t count, float* y, One one) {
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    float lanes[kLanes];
    for (int l = 0; l < kLanes; ++l) lanes[l] = one(x[i + l]);
    for (int l = 0; l < kLanes; ++l) y[i + l] = lanes[l];
  }
  for (; i < count; ++i) y[i] = one(x[i]);
}

class QdqLinearCpu final : public QdqLinearBase {
 public:
  explicit QdqLinearCpu(bool quantize) : QdqLinearBase(quantize) {}
  MaceStatus Prepare(OpContext* context) override {
    const CpuRuntime* cpu = ContextCpu(context);
    const TransformerKernels* kernels =
        EngineTransformerKernels(cpu != nullptr ? cpu->kernel_isa() : ActiveKernelIsa());
    // Bit for bit the reference in every variant, so the portable one
    // stands in for the reference kernels too.
    fake_quantize_ = (kernels != nullptr ? kernels : PortableTransformerKernels())->fake_quantize;
    return InferShapes();
  }

  MaceStatus Run(OpContext* context) override {
    const ref::QdqLinearParams& p = params();
    double low = 0, high = 0;
    if (p.grouping == ref::QdqGrouping::BLOCKED ||
        (quantize() && !ref::QdqIntegerRange(p.to, &low, &high))) {
      return Compute();
    }
    const Tensor* zero_point = InputSize() > 2 ? Input(2) : nullptr;
    const float* zps = zero_point != nullptr ? zero_point->data<float>() : nullptr;
    const float* scales = Input(1)->data<float>();
    const bool per_tensor = p.grouping == ref::QdqGrouping::PER_TENSOR;
    const int64_t scale_count = per_tensor ? 1 : p.axis_len;
    for (int64_t s = 0; quantize() && zps != nullptr && s < scale_count; ++s) {
      if (!(std::fabs(zps[s]) <= kLargestZeroPoint) || zps[s] != std::nearbyint(zps[s])) {
        return Compute();
      }
    }
    const float* x = Input(0)->data<float>();
    float* y = Output(0)->mutable_data<float>();
    const int64_t count = p.outer * p.axis_len * p.inner;
    // Runs of `run` elements share scale (run index % scale_count).
    const int64_t run = per_tensor ? std::max<int64_t>(count, 1) : p.inner;
    const bool quantizing = quantize(), dequantizing = dequantize();
    auto span = [&](int64_t first, int64_t last) {
      while (first < last) {
        const int64_t index = first / run;
        const int64_t end = std::min(last, (index + 1) * run);
        const int64_t s = per_tensor ? 0 : index % scale_count;
        const float zp = zps != nullptr ? zps[s] : 0.f;
        const float scale = scales[s];
        const float lo = static_cast<float>(low) - zp, hi = static_cast<float>(high) - zp;
        if (quantizing && dequantizing) {
          fake_quantize_(x + first, end - first, scale, lo, hi, y + first);
        } else if (quantizing) {
          MapRun(x + first, end - first, y + first,
                 [=](float v) { return RoundedQuotient(v, scale, lo, hi) + zp; });
        } else {
          const double wide_scale = scale, wide_zp = zp;
          MapRun(x + first, end - first, y + first, [=](float v) {
            return static_cast<float>((static_cast<double>(v) - wide_zp) * wide_scale);
          });
        }
        first = end;
      }
    };
    RunInPieces(context, count, span);
    return MaceStatus();
  }

 private:
  // The engine's transformer kernel for QuantizeLinear with dequantize.
  FakeQuantizeKernel fake_quantize_ = nullptr;
};

}  // namespace

std::unique_ptr<Operation> NewQuantizeLinearCpu() { return std::make_unique<QdqLinearCpu>(true); }

std::unique_ptr<Operation> NewDequantizeLinearCpu() {
  return std::make_unique<QdqLinearCpu>(false);
}

}  // namespace ops
}  // namespace mace
