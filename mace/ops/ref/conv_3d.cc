#include "mace/ops/ref/conv_3d.h"

namespace mace {
namespace ops {
namespace ref {

void Conv3D(const Conv3DParams& p, const float* input, const float* filter, const float* bias,
            float* output) {
  const int64_t in_per_group = p.in_channels / p.group;
  const int64_t out_per_group = p.out_channels / p.group;
  const int64_t in_volume = p.in[0] * p.in[1] * p.in[2];
  const int64_t taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  int64_t index = 0;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      const int64_t first_ic = (oc / out_per_group) * in_per_group;
      for (int64_t od = 0; od < p.out[0]; ++od) {
        for (int64_t oh = 0; oh < p.out[1]; ++oh) {
          for (int64_t ow = 0; ow < p.out[2]; ++ow) {
            double sum = bias != nullptr ? bias[oc] : 0.0;
            for (int64_t ic = 0; ic < in_per_group; ++ic) {
              const float* volume = input + (n * p.in_channels + first_ic + ic) * in_volume;
              const float* w = filter + (oc * in_per_group + ic) * taps;
              for (int64_t kd = 0; kd < p.kernel[0]; ++kd) {
                const int64_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
                if (id < 0 || id >= p.in[0]) continue;
                for (int64_t kh = 0; kh < p.kernel[1]; ++kh) {
                  const int64_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
                  if (ih < 0 || ih >= p.in[1]) continue;
                  for (int64_t kw = 0; kw < p.kernel[2]; ++kw) {
                    const int64_t iw = ow * p.stride[2] - p.pad[2] + kw * p.dilation[2];
                    if (iw < 0 || iw >= p.in[2]) continue;
                    sum += static_cast<double>(volume[(id * p.in[1] + ih) * p.in[2] + iw]) *
                           w[(kd * p.kernel[1] + kh) * p.kernel[2] + kw];
                  }
                }
              }
            }
            output[index++] = p.activation.Apply(static_cast<float>(sum));
          }
        }
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
