#include "mace/ops/cpu/conv_2d_gemm.h"

#include <algorithm>
#include <cstring>

#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {
namespace {

// The widest B panel of any kernel table (AVX-512: nr = 32).
constexpr int kMaxPanelWidth = 32;

}  // namespace

void PackIm2col(const void* context, int64_t pixel0, int64_t pixels, int64_t depth0, int64_t depth,
                int width, float* dst) {
  const Im2colSource& s = *static_cast<const Im2colSource*>(context);
  const int64_t taps = s.kernel_h * s.kernel_w;
  const int64_t plane_size = s.in_h * s.in_w;
  int64_t ih0[kMaxPanelWidth], iw0[kMaxPanelWidth];
  for (int64_t p = 0; p < pixels; p += width, dst += width * depth) {
    const int valid = static_cast<int>(std::min<int64_t>(width, pixels - p));
    int64_t oh = (pixel0 + p) / s.out_w, ow = (pixel0 + p) % s.out_w;
    // Lanes of one output row with unit stride read one contiguous input run.
    const bool one_run = ow + valid <= s.out_w && s.stride_w == 1;
    for (int i = 0; i < valid; ++i) {
      ih0[i] = oh * s.stride_h - s.pad_top;
      iw0[i] = ow * s.stride_w - s.pad_left;
      if (++ow == s.out_w) {
        ow = 0;
        ++oh;
      }
    }
    for (int64_t d = 0; d < depth; ++d) {
      const int64_t index = depth0 + d;
      const int64_t tap = index % taps;
      const float* plane = s.input + (index / taps) * plane_size;
      const int64_t dy = (tap / s.kernel_w) * s.dilation_h;
      const int64_t dx = (tap % s.kernel_w) * s.dilation_w;
      float* out = dst + d * width;
      const int64_t run_h = ih0[0] + dy, run_w = iw0[0] + dx;
      if (one_run && run_h >= 0 && run_h < s.in_h && run_w >= 0 && run_w + valid <= s.in_w) {
        std::memcpy(out, plane + run_h * s.in_w + run_w, valid * sizeof(float));
      } else {
        for (int i = 0; i < valid; ++i) {
          const int64_t ih = ih0[i] + dy, iw = iw0[i] + dx;
          out[i] = ih >= 0 && ih < s.in_h && iw >= 0 && iw < s.in_w ? plane[ih * s.in_w + iw] : 0.f;
        }
      }
      std::fill(out + valid, out + width, 0.f);
    }
  }
}

Conv2dGemm::Conv2dGemm(const KernelTable& table, const ref::Conv2DParams& params,
                       const float* filter, PersistentArena* arena)
    : table_(table), params_(params) {
  const int64_t in_per_group = params.in_channels / params.group;
  m_ = params.out_channels / params.group;
  n_ = params.out_h * params.out_w;
  k_ = in_per_group * params.kernel_h * params.kernel_w;
  direct_ = params.kernel_h == 1 && params.kernel_w == 1 && params.stride_h == 1 &&
            params.stride_w == 1 && params.pad_top == 0 && params.pad_left == 0 &&
            params.out_h == params.in_h && params.out_w == params.in_w;
  fused_activation_ = FuseActivation(params.activation, &epilogue_);
  filters_.resize(params.group);
  for (int64_t g = 0; g < params.group; ++g) {
    // OIHW is already [out channel][(ic, kh, kw)]: A rows with unit depth stride.
    filters_[g].Pack(filter + g * m_ * k_, m_, k_, k_, 1, table.mr, arena);
  }
}

GemmOperand Conv2dGemm::Columns(const float* group_input, Im2colSource* source) const {
  GemmOperand columns;
  if (direct_) {
    columns.data = group_input;
    columns.stride = 1;
    columns.depth_stride = params_.in_h * params_.in_w;
    return columns;
  }
  source->input = group_input;
  source->in_h = params_.in_h;
  source->in_w = params_.in_w;
  source->out_w = params_.out_w;
  source->kernel_h = params_.kernel_h;
  source->kernel_w = params_.kernel_w;
  source->stride_h = params_.stride_h;
  source->stride_w = params_.stride_w;
  source->dilation_h = params_.dilation_h;
  source->dilation_w = params_.dilation_w;
  source->pad_top = params_.pad_top;
  source->pad_left = params_.pad_left;
  columns.packer = PackIm2col;
  columns.packer_context = source;
  return columns;
}

int64_t Conv2dGemm::ScratchBytes(int threads) const {
  GemmOperand lhs, columns;
  lhs.packed = &filters_[0];
  return threads * GemmScratchFloatsPerThread(table_, m_, n_, k_, lhs, columns) *
         static_cast<int64_t>(sizeof(float));
}

void Conv2dGemm::Run(const float* input, const float* bias, float* output, ThreadPool* pool,
                     float* scratch) const {
  const int64_t in_plane = params_.in_h * params_.in_w;
  const int64_t in_per_group = params_.in_channels / params_.group;
  for (int64_t b = 0; b < params_.batch; ++b) {
    for (int64_t g = 0; g < params_.group; ++g) {
      Im2colSource source;
      const float* group_input = input + (b * params_.in_channels + g * in_per_group) * in_plane;
      const GemmOperand columns = Columns(group_input, &source);
      GemmOperand lhs;
      lhs.packed = &filters_[g];
      TileEpilogue epilogue = epilogue_;
      epilogue.row_bias = bias != nullptr ? bias + g * m_ : nullptr;
      float* out = output + (b * params_.out_channels + g * m_) * n_;
      Gemm(table_, m_, n_, k_, lhs, columns, out, n_, epilogue, pool, scratch);
    }
  }
  if (!fused_activation_) {
    ApplyActivation(params_.activation, output, params_.batch * params_.out_channels * n_, pool);
  }
}

}  // namespace ops
}  // namespace mace
