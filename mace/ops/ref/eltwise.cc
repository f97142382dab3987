#include "mace/ops/ref/eltwise.h"

#include <cmath>
#include <limits>

namespace mace {
namespace ops {
namespace ref {
namespace {

// Both operands are widened to double: the float result of +, -, * and / is
// then correctly rounded, and SQR_DIFF, POW and the weighted SUM round once.
double Compute(const EltwiseParams& p, double a, double b) {
  switch (p.type) {
    case EltwiseType::SUM:
      return p.coeff_a * a + p.coeff_b * b;
    case EltwiseType::SUB:
      return a - b;
    case EltwiseType::PROD:
      return a * b;
    case EltwiseType::DIV:
      return a / b;
    // NaN propagates through MIN and MAX, as in numpy.
    case EltwiseType::MIN:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                            : (a < b ? a : b);
    case EltwiseType::MAX:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                            : (a > b ? a : b);
    case EltwiseType::NEG:
      return -a;
    case EltwiseType::ABS:
      return std::fabs(a);
    case EltwiseType::SQR_DIFF:
      return (a - b) * (a - b);
    case EltwiseType::POW:
      return std::pow(a, b);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

void Eltwise(const EltwiseParams& p, const float* a, const float* b, float* output) {
  const int rank = static_cast<int>(p.shape.size());
  const bool unary = IsUnary(p.type);
  int64_t count = 1;
  for (int64_t d : p.shape) count *= d;
  for (int64_t i = 0; i < count; ++i) {
    // Peel the output coordinates off the flat index, innermost first, and
    // map each to both operands through their strides.
    int64_t rest = i, a_offset = 0, b_offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t coordinate = rest % p.shape[d];
      rest /= p.shape[d];
      a_offset += coordinate * p.a_strides[d];
      if (!unary) b_offset += coordinate * p.b_strides[d];
    }
    const double value = Compute(p, a[a_offset], unary ? 0.0 : b[b_offset]);
    output[i] = p.activation.Apply(static_cast<float>(value));
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
