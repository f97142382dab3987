#include "mace/ops/ref/qdq_linear.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {
namespace {

// The index of the scale of element (o, d, i).
int64_t ScaleIndex(const QdqLinearParams& p, int64_t o, int64_t d, int64_t i) {
  switch (p.grouping) {
    case QdqGrouping::PER_TENSOR:
      return 0;
    case QdqGrouping::PER_AXIS:
      return d;
    case QdqGrouping::BLOCKED: {
      const int64_t blocks = (p.axis_len + p.block - 1) / p.block;
      return (o * blocks + d / p.block) * p.inner + i;
    }
  }
  return 0;
}

bool IntegerRange(CastType type, double* low, double* high) {
  switch (type) {
    case CastType::UINT4: *low = 0; *high = 15; return true;
    case CastType::INT4: *low = -8; *high = 7; return true;
    case CastType::UINT8: *low = 0; *high = 255; return true;
    case CastType::INT8: *low = -128; *high = 127; return true;
    case CastType::UINT16: *low = 0; *high = 65535; return true;
    case CastType::INT16: *low = -32768; *high = 32767; return true;
    default: return false;
  }
}

template <typename F>
void ForEach(const QdqLinearParams& p, F f) {
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t d = 0; d < p.axis_len; ++d) {
      const int64_t row = (o * p.axis_len + d) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) f(row + i, ScaleIndex(p, o, d, i));
    }
  }
}

}  // namespace

bool QdqIntegerRange(CastType type, double* low, double* high) {
  return IntegerRange(type, low, high);
}

bool IsQuantizedType(CastType type) {
  double low = 0, high = 0;
  return IntegerRange(type, &low, &high) || type == CastType::FLOAT8E4M3FN ||
         type == CastType::FLOAT8E4M3FNUZ || type == CastType::FLOAT8E5M2 ||
         type == CastType::FLOAT8E5M2FNUZ;
}

void QuantizeLinear(const QdqLinearParams& p, const float* x, const float* scale,
                    const float* zero_point, float* y) {
  double low = 0, high = 0;
  if (!IntegerRange(p.to, &low, &high)) {
    CastParams cast;
    cast.to = p.to;
    cast.saturate = p.saturate;
    ForEach(p, [&](int64_t at, int64_t s) { y[at] = CastValue(cast, x[at] / scale[s]); });
    return;
  }
  ForEach(p, [&](int64_t at, int64_t s) {
    const float quotient = x[at] / scale[s];  // float32, as ONNX divides
    const double zp = zero_point != nullptr ? zero_point[s] : 0.0;
    // nearbyint rounds ties to even in the default rounding mode.
    const double q = std::isnan(quotient) ? zp : std::nearbyint(quotient) + zp;
    y[at] = static_cast<float>(std::min(std::max(q, low), high));
  });
}

void DequantizeLinear(const QdqLinearParams& p, const float* x, const float* scale,
                      const float* zero_point, float* y) {
  ForEach(p, [&](int64_t at, int64_t s) {
    const double zp = zero_point != nullptr ? zero_point[s] : 0.0;
    y[at] = static_cast<float>((static_cast<double>(x[at]) - zp) * scale[s]);
  });
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
