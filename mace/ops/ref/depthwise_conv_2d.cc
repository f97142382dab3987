#include "mace/ops/ref/depthwise_conv_2d.h"

namespace mace {
namespace ops {
namespace ref {

void DepthwiseConv2d(const DepthwiseConv2dParams& p, const float* input, const float* filter,
                     const float* bias, float* output) {
  const int64_t out_channels = p.channels * p.multiplier;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const float* plane = input + ((n * p.channels + c) * p.in_h) * p.in_w;
      for (int64_t m = 0; m < p.multiplier; ++m) {
        const int64_t oc = c * p.multiplier + m;
        const float* taps = filter + ((m * p.channels + c) * p.kernel_h) * p.kernel_w;
        float* out_plane = output + ((n * out_channels + oc) * p.out_h) * p.out_w;
        for (int64_t oh = 0; oh < p.out_h; ++oh) {
          for (int64_t ow = 0; ow < p.out_w; ++ow) {
            double sum = bias != nullptr ? bias[oc] : 0.0;
            for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
              const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
              if (ih < 0 || ih >= p.in_h) continue;
              for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
                const int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
                if (iw < 0 || iw >= p.in_w) continue;
                sum += static_cast<double>(plane[ih * p.in_w + iw]) * taps[kh * p.kernel_w + kw];
              }
            }
            out_plane[oh * p.out_w + ow] = p.activation.Apply(static_cast<float>(sum));
          }
        }
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
