#include "mace/ops/ref/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

namespace {

// The score after the mask: `value` with the mask value `m` applied.
double Masked(const AttentionParams& p, double value, float m) {
  switch (p.mask_kind) {
    case AttentionMask::ADD:
      return value + m;
    case AttentionMask::KEEP_NONZERO:
      return m != 0.f ? value : p.fill;
    case AttentionMask::KEEP_ZERO:
      return m == 0.f ? value : p.fill;
    case AttentionMask::NONE:
      break;
  }
  return value;
}

}  // namespace

float FakeQuantize(const AttentionFakeQuant& fq, float x) {
  const float quotient = x / fq.scale;  // float32, as ONNX divides
  // nearbyint rounds ties to even in the default rounding mode.
  const double q = std::isnan(quotient) ? fq.zero_point : std::nearbyint(quotient) + fq.zero_point;
  const double clamped = std::min(std::max(q, static_cast<double>(fq.low)), double{fq.high});
  return static_cast<float>((clamped - fq.zero_point) * fq.scale);
}

void Attention(const AttentionParams& p, const float* q, const float* k, const float* v,
               const float* mask, float* output) {
  std::vector<double> scores(p.kv_len), row(p.v_depth);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < p.heads; ++h) {
      for (int64_t i = 0; i < p.q_len; ++i) {
        const float* qi = q + b * p.q.batch + h * p.q.head + i * p.q.row;
        double top = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < p.kv_len; ++j) {
          const float* kj = k + b * p.k.batch + h * p.k.head + j * p.k.row;
          double dot = 0;
          for (int64_t d = 0; d < p.depth; ++d) {
            dot += static_cast<double>(qi[d * p.q.column]) * kj[d * p.k.column];
          }
          double s = dot * p.scale;
          if (p.mask_kind != AttentionMask::NONE) {
            s = Masked(
                p, s,
                mask[b * p.mask.batch + h * p.mask.head + i * p.mask.row + j * p.mask.column]);
          }
          if (p.scores_quant.on) s = FakeQuantize(p.scores_quant, static_cast<float>(s));
          scores[j] = s;
          if (s > top) top = s;
        }
        float* out = output + b * p.out.batch + h * p.out.head + i * p.out.row;
        if (top == -std::numeric_limits<double>::infinity()) {
          for (int64_t d = 0; d < p.v_depth; ++d) out[d * p.out.column] = 0.f;
          continue;
        }
        double sum = 0;
        for (int64_t j = 0; j < p.kv_len; ++j) {
          scores[j] = std::exp(scores[j] - top);
          sum += scores[j];
        }
        for (int64_t d = 0; d < p.v_depth; ++d) row[d] = 0;
        for (int64_t j = 0; j < p.kv_len; ++j) {
          const float* vj = v + b * p.v.batch + h * p.v.head + j * p.v.row;
          double weight = scores[j] / sum;
          if (p.probs_quant.on) weight = FakeQuantize(p.probs_quant, static_cast<float>(weight));
          for (int64_t d = 0; d < p.v_depth; ++d) row[d] += weight * vj[d * p.v.column];
        }
        for (int64_t d = 0; d < p.v_depth; ++d) out[d * p.out.column] = static_cast<float>(row[d]);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
