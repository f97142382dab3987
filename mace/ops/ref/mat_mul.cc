#include "mace/ops/ref/mat_mul.h"

namespace mace {
namespace ops {
namespace ref {

void MatMul(const MatMulParams& p, const float* a, const float* b, const float* bias,
            float* output) {
  int64_t batch_count = 1;
  for (int64_t d : p.batch_shape) batch_count *= d;
  const int rank = static_cast<int>(p.batch_shape.size());
  for (int64_t batch = 0; batch < batch_count; ++batch) {
    // Peel the output batch index into coordinates, innermost first.
    int64_t a_matrix = 0, b_matrix = 0;
    int64_t rest = batch;
    for (int i = rank - 1; i >= 0; --i) {
      const int64_t coordinate = rest % p.batch_shape[i];
      rest /= p.batch_shape[i];
      a_matrix += coordinate * p.a_batch_strides[i];
      b_matrix += coordinate * p.b_batch_strides[i];
    }
    const float* a_base = a + a_matrix * p.m * p.k;
    const float* b_base = b + b_matrix * p.k * p.n;
    float* out = output + batch * p.m * p.n;
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        double sum = bias != nullptr ? bias[j] : 0.0;
        for (int64_t l = 0; l < p.k; ++l) {
          const float x = p.transpose_a ? a_base[l * p.m + i] : a_base[i * p.k + l];
          const float y = p.transpose_b ? b_base[j * p.k + l] : b_base[l * p.n + j];
          sum += static_cast<double>(x) * y;
        }
        out[i * p.n + j] = static_cast<float>(sum);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
