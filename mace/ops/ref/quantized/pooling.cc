#include "mace/ops/ref/quantized/pooling.h"

#include <algorithm>

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

void Pooling(const PoolingParams& p, int32_t zero_point, const uint8_t* input, uint8_t* output) {
  for (int64_t plane = 0; plane < p.batch * p.channels; ++plane) {
    const uint8_t* in = input + plane * p.in_h * p.in_w;
    uint8_t* out = output + plane * p.out_h * p.out_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        int64_t valid = 0, padded = 0, sum = 0;
        int32_t max = 0;
        for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
          const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
          const bool h_in_padded = ih >= -p.pad_top && ih < p.in_h + p.pad_bottom;
          for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
            if (h_in_padded && iw >= -p.pad_left && iw < p.in_w + p.pad_right) ++padded;
            if (ih < 0 || ih >= p.in_h || iw < 0 || iw >= p.in_w) continue;
            const int32_t value = in[ih * p.in_w + iw];
            max = valid == 0 ? value : std::max(max, value);
            sum += value;
            ++valid;
          }
        }
        int64_t result = zero_point;
        if (valid > 0 && p.type == PoolingType::MAX) {
          result = max;
        } else if (valid > 0) {
          const int64_t divisor = p.count_include_pad ? padded : valid;
          sum += (divisor - valid) * zero_point;
          result = (sum + divisor / 2) / divisor;
        }
        out[oh * p.out_w + ow] = static_cast<uint8_t>(result);
      }
    }
  }
}

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace
