#include "mace/ops/ref/quantized/conv_2d.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {
namespace {

template <typename W>
void Conv2DImpl(const Conv2DParams& p, const ConvQuantization& quant, const uint8_t* input,
                const W* filter, const int32_t* bias, uint8_t* output) {
  const int64_t in_per_group = p.in_channels / p.group;
  const int64_t out_per_group = p.out_channels / p.group;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      const int64_t first_ic = (oc / out_per_group) * in_per_group;
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          int64_t sum = bias != nullptr ? bias[oc] : 0;
          for (int64_t ic = 0; ic < in_per_group; ++ic) {
            const uint8_t* plane = input + ((n * p.in_channels + first_ic + ic) * p.in_h) * p.in_w;
            const W* taps = filter + ((oc * in_per_group + ic) * p.kernel_h) * p.kernel_w;
            for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
              const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
              if (ih < 0 || ih >= p.in_h) continue;
              for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
                const int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
                if (iw < 0 || iw >= p.in_w) continue;
                sum += (int64_t{plane[ih * p.in_w + iw]} - quant.input_zero_point) *
                       (int64_t{taps[kh * p.kernel_w + kw]} - quant.filter_zero_point);
              }
            }
          }
          output[((n * p.out_channels + oc) * p.out_h + oh) * p.out_w + ow] =
              RequantizeToUint8(SaturateToInt32(sum), quant.multiplier(oc), quant.output);
        }
      }
    }
  }
}

template <typename W>
void DepthwiseImpl(const DepthwiseConv2dParams& p, const ConvQuantization& quant,
                   const uint8_t* input, const W* filter, const int32_t* bias, uint8_t* output) {
  const int64_t out_channels = p.channels * p.multiplier;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const uint8_t* plane = input + (n * p.channels + c) * p.in_h * p.in_w;
      for (int64_t m = 0; m < p.multiplier; ++m) {
        const int64_t oc = c * p.multiplier + m;
        const W* taps = filter + (m * p.channels + c) * p.kernel_h * p.kernel_w;
        uint8_t* out = output + (n * out_channels + oc) * p.out_h * p.out_w;
        for (int64_t oh = 0; oh < p.out_h; ++oh) {
          for (int64_t ow = 0; ow < p.out_w; ++ow) {
            int64_t sum = bias != nullptr ? bias[oc] : 0;
            for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
              const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
              if (ih < 0 || ih >= p.in_h) continue;
              for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
                const int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
                if (iw < 0 || iw >= p.in_w) continue;
                sum += (int64_t{plane[ih * p.in_w + iw]} - quant.input_zero_point) *
                       (int64_t{taps[kh * p.kernel_w + kw]} - quant.filter_zero_point);
              }
            }
            out[oh * p.out_w + ow] =
                RequantizeToUint8(SaturateToInt32(sum), quant.multiplier(oc), quant.output);
          }
        }
      }
    }
  }
}

}  // namespace

void Conv2D(const Conv2DParams& params, const ConvQuantization& quant, const uint8_t* input,
            const uint8_t* filter, const int32_t* bias, uint8_t* output) {
  Conv2DImpl(params, quant, input, filter, bias, output);
}

void Conv2D(const Conv2DParams& params, const ConvQuantization& quant, const uint8_t* input,
            const int8_t* filter, const int32_t* bias, uint8_t* output) {
  Conv2DImpl(params, quant, input, filter, bias, output);
}

void DepthwiseConv2d(const DepthwiseConv2dParams& params, const ConvQuantization& quant,
                     const uint8_t* input, const uint8_t* filter, const int32_t* bias,
                     uint8_t* output) {
  DepthwiseImpl(params, quant, input, filter, bias, output);
}

void DepthwiseConv2d(const DepthwiseConv2dParams& params, const ConvQuantization& quant,
                     const uint8_t* input, const int8_t* filter, const int32_t* bias,
                     uint8_t* output) {
  DepthwiseImpl(params, quant, input, filter, bias, output);
}

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace
