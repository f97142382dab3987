#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"

#include <algorithm>

#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {

bool DepthwiseConv3x3::Supports(const KernelTable& table, const ref::DepthwiseConv2dParams& p) {
  return table.depthwise3x3_s1 != nullptr && p.kernel_h == 3 && p.kernel_w == 3 &&
         p.dilation_h == 1 && p.dilation_w == 1 && (p.stride_w == 1 || p.stride_w == 2) &&
         (p.stride_h == 1 || p.stride_h == 2);
}

DepthwiseConv3x3::DepthwiseConv3x3(const KernelTable& table,
                                   const ref::DepthwiseConv2dParams& params)
    : params_(params) {
  row_kernel_ = params.stride_w == 1 ? table.depthwise3x3_s1 : table.depthwise3x3_s2;
  fused_activation_ = FuseActivation(params.activation, &epilogue_);
  // Output column ow reads inputs ow * stride - pad_left + {0, 1, 2}.
  const int64_t s = params.stride_w;
  interior_begin_ = std::min((params.pad_left + s - 1) / s, params.out_w);
  const int64_t last_start = params.in_w - 3 + params.pad_left;  // ow * s <= this
  interior_end_ = last_start < 0 ? 0 : std::min(last_start / s + 1, params.out_w);
  if (interior_end_ < interior_begin_) interior_end_ = interior_begin_;
}

float DepthwiseConv3x3::BorderOutput(const float* const rows[3], const float* taps, float bias,
                                     int64_t ow) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t iw0 = ow * p.stride_w - p.pad_left;
  float sum = bias;
  for (int64_t kw = 0; kw < 3; ++kw) {
    const int64_t iw = iw0 + kw;
    if (iw < 0 || iw >= p.in_w) continue;
    for (int r = 0; r < 3; ++r) {
      if (rows[r] != nullptr) sum += rows[r][iw] * taps[r * 3 + kw];
    }
  }
  return fused_activation_ ? p.activation.Apply(sum) : sum;
}

void DepthwiseConv3x3::RunRow(const float* plane, const float* taps, float bias, int64_t oh,
                              float* out) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const float* rows[3];
  for (int r = 0; r < 3; ++r) {
    const int64_t ih = oh * p.stride_h - p.pad_top + r;
    rows[r] = ih >= 0 && ih < p.in_h ? plane + ih * p.in_w : nullptr;
  }
  for (int64_t ow = 0; ow < interior_begin_; ++ow) out[ow] = BorderOutput(rows, taps, bias, ow);
  if (interior_end_ > interior_begin_) {
    DepthwiseRow row;
    const int64_t iw = interior_begin_ * p.stride_w - p.pad_left;
    for (int r = 0; r < 3; ++r) row.rows[r] = rows[r] != nullptr ? rows[r] + iw : nullptr;
    row.taps = taps;
    row.bias = bias;
    row.out = out + interior_begin_;
    row.count = interior_end_ - interior_begin_;
    row.epilogue = epilogue_;
    row_kernel_(row);
  }
  for (int64_t ow = interior_end_; ow < p.out_w; ++ow) {
    out[ow] = BorderOutput(rows, taps, bias, ow);
  }
  if (!fused_activation_) p.activation.ApplyInPlace(out, p.out_w);
}

void DepthwiseConv3x3::Run(const float* input, const float* filter, const float* bias,
                           float* output, ThreadPool* pool) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t out_channels = p.channels * p.multiplier;
  const int64_t planes = p.batch * out_channels;
  ParallelFor(pool, planes * p.out_h, [&](int64_t begin, int64_t end) {
    // Divide once per plane, not per row: rows are short.
    int64_t out_plane = begin / p.out_h, oh = begin % p.out_h;
    for (int64_t item = begin; item < end; ++out_plane, oh = 0) {
      const int64_t n = out_plane / out_channels, oc = out_plane % out_channels;
      const int64_t c = oc / p.multiplier, m = oc % p.multiplier;
      const float* plane = input + (n * p.channels + c) * p.in_h * p.in_w;
      const float* taps = filter + (m * p.channels + c) * 9;
      const float plane_bias = bias != nullptr ? bias[oc] : 0.f;
      float* out = output + out_plane * p.out_h * p.out_w;
      for (; oh < p.out_h && item < end; ++oh, ++item) {
        RunRow(plane, taps, plane_bias, oh, out + oh * p.out_w);
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
