#include "mace/ops/ref/conv_2d.h"

namespace mace {
namespace ops {
namespace ref {

void Conv2D(const Conv2DParams& p, const float* input, const float* filter, const float* bias,
            float* output) {
  const int64_t in_per_group = p.in_channels / p.group;
  const int64_t out_per_group = p.out_channels / p.group;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      const int64_t first_ic = (oc / out_per_group) * in_per_group;
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          // Accumulate in double so the oracle's own rounding stays negligible.
          double sum = bias != nullptr ? bias[oc] : 0.0;
          for (int64_t ic = 0; ic < in_per_group; ++ic) {
            const float* plane = input + ((n * p.in_channels + first_ic + ic) * p.in_h) * p.in_w;
            const float* taps = filter + ((oc * in_per_group + ic) * p.kernel_h) * p.kernel_w;
            for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
              const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
              if (ih < 0 || ih >= p.in_h) continue;
              for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
                const int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
                if (iw < 0 || iw >= p.in_w) continue;
                sum += static_cast<double>(plane[ih * p.in_w + iw]) * taps[kh * p.kernel_w + kw];
              }
            }
          }
          output[((n * p.out_channels + oc) * p.out_h + oh) * p.out_w + ow] =
              p.activation.Apply(static_cast<float>(sum));
        }
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
