// Softmax on uint8: the reference arithmetic (ref/quantized/softmax.h) with
// the exponential table of the input's scale, built in Prepare, and the
// slices split over the thread pool. Each output's integer quotient
// (t * 512 + sum) / (2 sum) is taken from a product with the slice's
// inverse in double and corrected to the exact floor (both operands are
// below 2^53), so the results equal the reference's bit for bit without a
// division per value.
#include "mace/ops/cpu/softmax_uint8.h"

#include <algorithm>
#include <cstdint>
#include <memory>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/ops/softmax.h"

namespace mace {
namespace ops {
namespace {

// floor(numerator / denominator) for 0 <= numerator, 0 < denominator, both
// below 2^53, from the numerator times the denominator's inverse in
// double: that product is within one of the quotient, and the integer
// checks make it exact.
inline uint64_t ExactQuotient(uint64_t numerator, uint64_t denominator, double inverse) {
  uint64_t q = static_cast<uint64_t>(static_cast<double>(numerator) * inverse);
  if (q * denominator > numerator) {
    --q;
  } else if ((q + 1) * denominator <= numerator) {
    ++q;
  }
  return q;
}

// Longer slices could take the quotients' operands past 2^53: the reference
// kernel runs them.
constexpr int64_t kLongestSlice = int64_t{1} << 27;

// One slice of `size` values `stride` apart.
void SoftmaxSlice(const ref::quantized::SoftmaxTable& table, const uint8_t* input, int64_t size,
                  int64_t stride, uint8_t* output) {
  uint8_t max = 0;
  for (int64_t a = 0; a < size; ++a) max = std::max(max, input[a * stride]);
  uint64_t sum = 0;
  for (int64_t a = 0; a < size; ++a) sum += table[max - input[a * stride]];
  // sum >= table[0] = 2^24; 2 sum and term * 512 + sum stay below 2^53 for
  // slices shorter than kLongestSlice.
  const uint64_t denominator = 2 * sum;
  const double inverse = 1.0 / static_cast<double>(denominator);
  for (int64_t a = 0; a < size; ++a) {
    const uint64_t term = table[max - input[a * stride]];
    const uint64_t value = ExactQuotient(term * 512 + sum, denominator, inverse);
    output[a * stride] = static_cast<uint8_t>(std::min<uint64_t>(value, 255));
  }
}

class SoftmaxUint8Cpu final : public SoftmaxBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OP_CHECK(!params().use_log, "log-softmax has no uint8 kernel");
    MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {Input(0)}));
    MACE_RETURN_IF_ERROR(
        FixOutputQuantization(*this, ref::quantized::kSoftmaxOutputScale, 0, Output(0)));
    table_ = ref::quantized::MakeSoftmaxTable(Input(0)->scale());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const ref::SoftmaxParams& p = params();
    const uint8_t* input = Input(0)->data<uint8_t>();
    uint8_t* output = Output(0)->mutable_data<uint8_t>();
    if (p.axis_size >= kLongestSlice) {
      ref::quantized::Softmax(p, table_, input, output);
      return MaceStatus();
    }
    const int64_t slices = p.outer * p.inner;
    // Pieces of about 16,384 values.
    const int64_t per_piece =
        std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(p.axis_size, 1));
    const int64_t pieces = (slices + per_piece - 1) / per_piece;
    ParallelFor(pieces > 1 ? ContextPool(context) : nullptr, pieces,
                [&](int64_t begin, int64_t end) {
                  for (int64_t s = begin * per_piece; s < std::min(slices, end * per_piece); ++s) {
                    const int64_t o = s / p.inner, i = s % p.inner;
                    const int64_t base = o * p.axis_size * p.inner + i;
                    SoftmaxSlice(table_, input + base, p.axis_size, p.inner, output + base);
                  }
                });
    return MaceStatus();
  }

 private:
  ref::quantized::SoftmaxTable table_;
};

}  // namespace

std::unique_ptr<Operation> NewSoftmaxUint8Cpu() { return std::make_unique<SoftmaxUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
