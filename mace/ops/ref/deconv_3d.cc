#include "mace/ops/ref/deconv_3d.h"

namespace mace {
namespace ops {
namespace ref {
namespace {

// The input index that tap k of output o reads on one axis, or -1 when the
// tap lands between input positions or outside the input.
int64_t SourceIndex(const Deconv3DParams& p, int axis, int64_t o, int64_t k) {
  const int64_t offset = o + p.crop[axis] - k * p.dilation[axis];
  if (offset < 0 || offset % p.stride[axis] != 0) return -1;
  const int64_t i = offset / p.stride[axis];
  return i < p.in[axis] ? i : -1;
}

}  // namespace

void Deconv3D(const Deconv3DParams& p, const float* input, const float* filter, const float* bias,
              float* output) {
  const int64_t in_per_group = p.in_channels / p.group;
  const int64_t out_per_group = p.out_channels / p.group;
  const int64_t in_volume = p.in[0] * p.in[1] * p.in[2];
  const int64_t taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  int64_t index = 0;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      const int64_t g = oc / out_per_group;
      for (int64_t od = 0; od < p.out[0]; ++od) {
        for (int64_t oh = 0; oh < p.out[1]; ++oh) {
          for (int64_t ow = 0; ow < p.out[2]; ++ow) {
            double sum = bias != nullptr ? bias[oc] : 0.0;
            for (int64_t kd = 0; kd < p.kernel[0]; ++kd) {
              const int64_t id = SourceIndex(p, 0, od, kd);
              if (id < 0) continue;
              for (int64_t kh = 0; kh < p.kernel[1]; ++kh) {
                const int64_t ih = SourceIndex(p, 1, oh, kh);
                if (ih < 0) continue;
                for (int64_t kw = 0; kw < p.kernel[2]; ++kw) {
                  const int64_t iw = SourceIndex(p, 2, ow, kw);
                  if (iw < 0) continue;
                  const int64_t at = (id * p.in[1] + ih) * p.in[2] + iw;
                  const int64_t tap = (kd * p.kernel[1] + kh) * p.kernel[2] + kw;
                  for (int64_t i = 0; i < in_per_group; ++i) {
                    const int64_t ic = g * in_per_group + i;
                    const float x = input[(n * p.in_channels + ic) * in_volume + at];
                    const float w = filter[(ic * out_per_group + oc % out_per_group) * taps + tap];
                    sum += static_cast<double>(x) * w;
                  }
                }
              }
            }
            output[index++] = static_cast<float>(sum);
          }
        }
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
