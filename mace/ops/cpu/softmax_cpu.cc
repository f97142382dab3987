// Softmax's CPU kernel. A slice whose elements are adjacent (the last axis,
// as a classifier's [N, classes] logits) goes through a float kernel the
// compiler vectorizes: a polynomial exp in place of the reference kernel's
// two double-precision std::exp calls per element. Other slices (elements
// `inner` apart) run the reference kernel.
#include "mace/ops/cpu/softmax_cpu.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "mace/ops/softmax.h"

namespace mace {
namespace ops {
namespace {

// The compiler's generic vectors of kLanes values: one register of the
// baseline vector units (SSE2, NEON), which this file is built for.
constexpr int kLanes = 4;
typedef float SmVec __attribute__((vector_size(kLanes * sizeof(float))));
typedef uint32_t SmBits __attribute__((vector_size(kLanes * sizeof(uint32_t))));

inline SmVec SmSplat(float value) { return SmVec{} + value; }

inline SmVec SmLoad(const float* p) {
  SmVec v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// exp(x + x_low) for x <= 0 (a slice's value less its maximum, with the
// rounding error of that subtraction in x_low).
// x = n ln 2 + r with n = round(x / ln 2) and |r| <= ln(2) / 2 (ln 2 split
// in two so that n ln 2 is exact to float precision), e^r by its Taylor
// series to r^7 (truncation below 6e-9 relative), times 2^n built in the
// exponent bits. Below -87.3 the result would be subnormal: 0 instead (the
// reference gives at most FLT_MIN there). A NaN input gives NaN.
inline SmVec SmExp(const SmVec& x, const SmVec& x_low) {
  constexpr float kLog2e = 1.44269504088896341f;
  // 1.5 * 2^23: adding it rounds to an integer held in the low mantissa
  // bits.
  constexpr float kRound = 12582912.f;
  constexpr uint32_t kRoundBits = 0x4B400000u;
  constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  constexpr float kUnderflow = -87.3365448f;  // ln(FLT_MIN)
  const SmVec t = x * kLog2e + kRound;
  // n + 127 in the exponent field; n is in [-126, 0] for inputs that do
  // not underflow, and unsigned arithmetic keeps the others defined.
  const SmBits scale_bits = ((SmBits)t - kRoundBits + 127u) << 23;
  const SmVec n = t - kRound;
  const SmVec r = ((x - n * kLn2Hi) - n * kLn2Lo) + x_low;
  SmVec p = SmSplat(1.f / 5040.f);
  p = p * r + 1.f / 720.f;
  p = p * r + 1.f / 120.f;
  p = p * r + 1.f / 24.f;
  p = p * r + 1.f / 6.f;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  return x < SmSplat(kUnderflow) ? SmVec{} : p * (SmVec)scale_bits;
}

// One slice of `size` adjacent values; output may be input.
void SoftmaxSlice(const float* input, int64_t size, bool use_log, float* output) {
  const SmVec neg_inf = SmSplat(-INFINITY), pos_inf = SmSplat(INFINITY);
  // value[k..k + kLanes) of the slice, the tail padded with -inf (whose exp
  // is 0 and which no maximum takes).
  auto load = [&](int64_t k) {
    if (size - k >= kLanes) return SmLoad(input + k);
    float tail[kLanes];
    for (int l = 0; l < kLanes; ++l) tail[l] = k + l < size ? input[k + l] : -INFINITY;
    return SmLoad(tail);
  };
  // The maximum (NaNs skipped, as std::fmax does in the reference).
  SmVec lane_max = neg_inf;
  for (int64_t k = 0; k < size; k += kLanes) {
    const SmVec v = load(k);
    lane_max = v > lane_max ? v : lane_max;
  }
  float max_value = lane_max[0];
  for (int l = 1; l < kLanes; ++l) max_value = lane_max[l] > max_value ? lane_max[l] : max_value;
  const SmVec max_vec = SmSplat(max_value);
  // The exponentials (into the output unless log-softmax needs only their
  // sum), summed in kLanes float partial sums over kSumBlock values, then
  // in double (float sums over a whole slice of 4099 were 1e-6 off, in
  // blocks 2.2e-7 at most, the exp's own error included). value - max
  // is rounded to float; its error (exact, by Knuth's two-sum) goes into
  // the exp, whose relative error would otherwise grow with the distance
  // to the maximum (3.8e-6 at 74 below it).
  constexpr int64_t kSumBlock = 64;
  SmVec lane_sum = SmVec{};
  double sum = 0.0;
  for (int64_t k = 0; k < size; k += kLanes) {
    if (k % kSumBlock == 0) {
      for (int l = 0; l < kLanes; ++l) sum += lane_sum[l];
      lane_sum = SmVec{};
    }
    const SmVec v = load(k);
    const SmVec s = v - max_vec;
    const SmVec moved = s - v;
    const SmVec low = (v - (s - moved)) - (max_vec + moved);
    // Where s is not finite (-inf padding, an infinite or NaN input) the
    // error is NaN or meaningless: 0, and exp(s) decides.
    const SmVec e = SmExp(s, ((s > neg_inf) & (s < pos_inf)) ? low : SmVec{});
    lane_sum += e;
    if (!use_log) {
      const int64_t count = size - k < kLanes ? size - k : kLanes;
      std::memcpy(output + k, &e, count * sizeof(float));
    }
  }
  for (int l = 0; l < kLanes; ++l) sum += lane_sum[l];
  if (use_log) {
    const float log_sum = static_cast<float>(std::log(sum));
    for (int64_t k = 0; k < size; ++k) output[k] = (input[k] - max_value) - log_sum;
    return;
  }
  const float inverse = static_cast<float>(1.0 / sum);
  for (int64_t k = 0; k < size; ++k) output[k] *= inverse;
}

}  // namespace

void SoftmaxContiguous(const float* input, int64_t outer, int64_t size, bool use_log,
                       float* output) {
  for (int64_t n = 0; n < outer; ++n) {
    SoftmaxSlice(input + n * size, size, use_log, output + n * size);
  }
}

namespace {

class SoftmaxCpu final : public SoftmaxBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    const ref::SoftmaxParams& p = params();
    const float* input = Input(0)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    if (p.inner != 1) {
      ref::Softmax(p, input, output);
      return MaceStatus();
    }
    SoftmaxContiguous(input, p.outer, p.axis_size, p.use_log, output);
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewSoftmaxCpu() { return std::make_unique<SoftmaxCpu>(); }

}  // namespace ops
}  // namespace mace
