// Max and average pooling with ref::quantized::Pooling's rules: average is
// (sum + divisor / 2) / divisor, padded taps counted toward the divisor
// hold the zero point, an empty window gives the zero point.
#include "mace/dsp/kernels.h"

namespace mace {
namespace dsp {

bool CheckPooling(const OpArgs& op, Text* error) {
  if (op.num_inputs != 1 || op.num_outputs != 1 || op.num_params != kPoolParamCount) {
    *error << "needs 1 input, 1 output and its params";
    return false;
  }
  const int32_t* p = op.params;
  if ((p[kPoolType] != 1 && p[kPoolType] != 2) || p[kPoolKernelH] < 1 || p[kPoolKernelW] < 1 ||
      p[kPoolStrideH] < 1 || p[kPoolStrideW] < 1 || p[kPoolDilationH] < 1 ||
      p[kPoolDilationW] < 1 || p[kPoolPadTop] < 0 || p[kPoolPadLeft] < 0 ||
      p[kPoolPadBottom] < 0 || p[kPoolPadRight] < 0 || p[kPoolZeroPoint] < 0 ||
      p[kPoolZeroPoint] > 255) {
    *error << "bad pooling params";
    return false;
  }
  const DspTensor& in = *op.inputs[0];
  const DspTensor& out = *op.outputs[0];
  if (in.dims[0] != out.dims[0] || in.dims[1] != out.dims[1]) {
    *error << "pooling keeps N and C";
    return false;
  }
  return true;
}

void RunPooling(const OpArgs& op) {
  const int32_t* p = op.params;
  const DspTensor& input = *op.inputs[0];
  const DspTensor& output = *op.outputs[0];
  const int32_t in_h = input.dims[2], in_w = input.dims[3];
  const int32_t out_h = output.dims[2], out_w = output.dims[3];
  const int32_t zero_point = p[kPoolZeroPoint];
  const bool is_max = p[kPoolType] == 2;
  for (uint32_t plane = 0; plane < input.dims[0] * input.dims[1]; ++plane) {
    const uint8_t* in = input.data + plane * in_h * in_w;
    uint8_t* out = output.data + plane * out_h * out_w;
    for (int32_t oh = 0; oh < out_h; ++oh) {
      for (int32_t ow = 0; ow < out_w; ++ow) {
        int32_t valid = 0, padded = 0, sum = 0, max = 0;
        for (int32_t kh = 0; kh < p[kPoolKernelH]; ++kh) {
          const int32_t ih = oh * p[kPoolStrideH] - p[kPoolPadTop] + kh * p[kPoolDilationH];
          const bool h_in_padded = ih >= -p[kPoolPadTop] && ih < in_h + p[kPoolPadBottom];
          for (int32_t kw = 0; kw < p[kPoolKernelW]; ++kw) {
            const int32_t iw = ow * p[kPoolStrideW] - p[kPoolPadLeft] + kw * p[kPoolDilationW];
            if (h_in_padded && iw >= -p[kPoolPadLeft] && iw < in_w + p[kPoolPadRight]) ++padded;
            if (ih < 0 || ih >= in_h || iw < 0 || iw >= in_w) continue;
            const int32_t value = in[ih * in_w + iw];
            max = valid == 0 || value > max ? value : max;
            sum += value;
            ++valid;
          }
        }
        int32_t result = zero_point;
        if (valid > 0 && is_max) {
          result = max;
        } else if (valid > 0) {
          const int32_t divisor = p[kPoolCountIncludePad] ? padded : valid;
          sum += (divisor - valid) * zero_point;
          result = static_cast<int32_t>(static_cast<uint32_t>(sum + divisor / 2) /
                                        static_cast<uint32_t>(divisor));
        }
        out[oh * out_w + ow] = static_cast<uint8_t>(result);
      }
    }
  }
}

}  // namespace dsp
}  // namespace mace
