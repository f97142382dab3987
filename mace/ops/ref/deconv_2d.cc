#include "mace/ops/ref/deconv_2d.h"

namespace mace {
namespace ops {
namespace ref {

void Deconv2D(const Deconv2DParams& p, const float* input, const float* filter, const float* bias,
              float* output) {
  const int64_t in_per_group = p.in_channels / p.group;
  const int64_t out_per_group = p.out_channels / p.group;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      const int64_t g = oc / out_per_group;
      const int64_t oc_in_group = oc % out_per_group;
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          double sum = bias != nullptr ? bias[oc] : 0.0;
          for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
            // Invert oh = ih * stride - pad + kh * dilation; skip taps that
            // land between input rows or outside the input.
            const int64_t h_offset = oh + p.pad_top - kh * p.dilation_h;
            if (h_offset < 0 || h_offset % p.stride_h != 0) continue;
            const int64_t ih = h_offset / p.stride_h;
            if (ih >= p.in_h) continue;
            for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
              const int64_t w_offset = ow + p.pad_left - kw * p.dilation_w;
              if (w_offset < 0 || w_offset % p.stride_w != 0) continue;
              const int64_t iw = w_offset / p.stride_w;
              if (iw >= p.in_w) continue;
              for (int64_t i = 0; i < in_per_group; ++i) {
                const int64_t ic = g * in_per_group + i;
                const float x = input[((n * p.in_channels + ic) * p.in_h + ih) * p.in_w + iw];
                const float w =
                    filter[((ic * out_per_group + oc_in_group) * p.kernel_h + kh) * p.kernel_w +
                           kw];
                sum += static_cast<double>(x) * w;
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
