#include "mace/ops/ref/pooling.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {

void Pooling(const PoolingParams& p, const float* input, float* output) {
  for (int64_t plane_index = 0; plane_index < p.batch * p.channels; ++plane_index) {
    const float* plane = input + plane_index * p.in_h * p.in_w;
    float* out_plane = output + plane_index * p.out_h * p.out_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        double sum = 0.0;
        float max_value = 0.f;
        int64_t valid = 0;   // taps inside the input
        int64_t padded = 0;  // taps inside the input or its declared padding
        for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
          const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
          const bool h_in_padded = ih >= -p.pad_top && ih < p.in_h + p.pad_bottom;
          for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
            if (h_in_padded && iw >= -p.pad_left && iw < p.in_w + p.pad_right) ++padded;
            if (ih < 0 || ih >= p.in_h || iw < 0 || iw >= p.in_w) continue;
            const float x = plane[ih * p.in_w + iw];
            max_value = valid == 0 ? x : std::max(max_value, x);
            sum += p.type == PoolingType::LP ? std::pow(std::fabs(static_cast<double>(x)), p.p)
                                             : static_cast<double>(x);
            ++valid;
          }
        }
        float result = 0.f;
        if (p.type == PoolingType::MAX) {
          result = max_value;
        } else if (p.type == PoolingType::LP) {
          result = static_cast<float>(std::pow(sum, 1.0 / static_cast<double>(p.p)));
        } else {
          const int64_t divisor = p.count_include_pad ? padded : valid;
          result = divisor > 0 ? static_cast<float>(sum / divisor) : 0.f;
        }
        out_plane[oh * p.out_w + ow] = result;
      }
    }
  }
}

void MaxPoolingWithIndices(const PoolingParams& p, bool column_major, const float* input,
                           float* output, int32_t* indices) {
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  for (int64_t plane_index = 0; plane_index < p.batch * p.channels; ++plane_index) {
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        float best = 0.f;
        int64_t where = -1;
        for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
          const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
          for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
            if (ih < 0 || ih >= p.in_h || iw < 0 || iw >= p.in_w) continue;
            const float x = input[plane_index * in_plane + ih * p.in_w + iw];
            if (where < 0 || x > best) {
              best = x;
              where = plane_index * in_plane + (column_major ? iw * p.in_h + ih : ih * p.in_w + iw);
            }
          }
        }
        const int64_t out = plane_index * out_plane + oh * p.out_w + ow;
        output[out] = best;
        indices[out] = static_cast<int32_t>(where);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
