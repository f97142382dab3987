#include "mace/ops/ref/axis_ops.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mace {
namespace ops {
namespace ref {

void Trilu(const TriluParams& p, const float* input, float* output) {
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t r = 0; r < p.rows; ++r) {
      for (int64_t c = 0; c < p.cols; ++c) {
        const int64_t i = (b * p.rows + r) * p.cols + c;
        // Element (r, c) is on diagonal c - r.
        const bool keep = p.upper ? c - r >= p.k : c - r <= p.k;
        output[i] = keep ? input[i] : 0.f;
      }
    }
  }
}

void CumSum(const CumSumParams& p, const float* input, float* output) {
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      double sum = 0;
      for (int64_t n = 0; n < p.axis_size; ++n) {
        const int64_t j = p.reverse ? p.axis_size - 1 - n : n;
        const int64_t at = (o * p.axis_size + j) * p.inner + i;
        if (!p.exclusive) sum += input[at];
        output[at] = static_cast<float>(sum);
        if (p.exclusive) sum += input[at];
      }
    }
  }
}

void Tile(const TileParams& p, const float* input, float* output) {
  const int rank = static_cast<int>(p.output_shape.size());
  int64_t count = 1;
  for (int64_t d : p.output_shape) count *= d;
  std::vector<int64_t> coords(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d)
      offset = offset * p.input_shape[d] + coords[d] % p.input_shape[d];
    output[i] = input[offset];
    for (int d = rank - 1; d >= 0; --d) {
      if (++coords[d] < p.output_shape[d]) break;
      coords[d] = 0;
    }
  }
}

void TopK(const TopKParams& p, const float* input, float* values, float* indices) {
  std::vector<int64_t> order(p.axis_size);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const float* line = input + o * p.axis_size * p.inner + i;
      auto at = [&](int64_t n) { return line[n * p.inner]; };
      // True if element a comes before element b.
      auto before = [&](int64_t a, int64_t b) {
        const float x = at(a), y = at(b);
        const bool x_nan = std::isnan(x), y_nan = std::isnan(y);
        if (x_nan || y_nan) {
          if (x_nan == y_nan) return a < b;
          return p.largest ? x_nan : y_nan;
        }
        if (x != y) return p.largest ? x > y : x < y;
        return a < b;
      };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::partial_sort(order.begin(), order.begin() + p.k, order.end(), before);
      for (int64_t n = 0; n < p.k; ++n) {
        const int64_t out = (o * p.k + n) * p.inner + i;
        values[out] = at(order[n]);
        indices[out] = static_cast<float>(order[n]);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
