#include "mace/ops/cpu/conv_2d_direct.h"

#include <algorithm>

#include "mace/ops/cpu/conv_2d_gemm.h"
#include "mace/ops/cpu/conv_2d_split_columns.h"
#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {
namespace {

constexpr int64_t kCacheLineFloats = 16;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

}  // namespace

bool Conv2dDirect::Supports(const KernelTable& table, const ref::Conv2DParams& p) {
  const int64_t k = p.in_channels * p.kernel_h * p.kernel_w;
  const bool plain_1x1 = p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
                         p.pad_top == 0 && p.pad_left == 0;
  return table.conv_rows != nullptr && p.group == 1 && p.dilation_h == 1 && p.dilation_w == 1 &&
         (p.stride_w == 1 || p.stride_w == 2) && p.stride_h >= 1 && k <= table.kc && !plain_1x1 &&
         !Conv2dGemm::IsStridedPointwise(p);
}

Conv2dDirect::Conv2dDirect(const KernelTable& table, const ref::Conv2DParams& params,
                           const float* filter, PersistentArena* arena)
    : table_(table), params_(params) {
  const ref::Conv2DParams& p = params_;
  k_ = p.in_channels * p.kernel_h * p.kernel_w;
  fused_activation_ = FuseActivation(p.activation, &epilogue_);
  // OIHW is [out channel][(ic, kh, kw)]: A rows with unit depth stride.
  filter_.Pack(filter, p.out_channels, k_, k_, 1, table.mr, arena);
  // Output row oh reads padded rows oh * stride_h + kh.
  padded_rows_ = (p.out_h - 1) * p.stride_h + p.kernel_h;
  // Tiles read whole B rows of nr floats from their first output column,
  // so the last tile of a row reads up to column RoundUp(out_w, nr) - 1.
  const int64_t columns = RoundUp(p.out_w, table.nr);
  if (p.stride_w == 1) {
    half_ = 0;
    pitch_ = RoundUp(columns + p.kernel_w - 1, kCacheLineFloats);
  } else {
    // Padded column 2 * ow + kw is entry ow + kw / 2 of half kw % 2.
    half_ = RoundUp(columns + p.kernel_w / 2, kCacheLineFloats);
    pitch_ = 2 * half_;
  }
  offsets_.resize(k_);
  for (int64_t ic = 0; ic < p.in_channels; ++ic) {
    for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
        const int64_t column = p.stride_w == 1 ? kw : (kw % 2) * half_ + kw / 2;
        offsets_[(ic * p.kernel_h + kh) * p.kernel_w + kw] =
            (ic * padded_rows_ + kh) * pitch_ + column;
      }
    }
  }
}

int64_t Conv2dDirect::ScratchBytes(int threads) const {
  (void)threads;  // one copy of the image, shared by the threads
  return params_.in_channels * padded_rows_ * pitch_ * static_cast<int64_t>(sizeof(float));
}

void Conv2dDirect::FillPadded(const float* image, int64_t begin, int64_t end, float* padded) const {
  const ref::Conv2DParams& p = params_;
  for (int64_t ic = begin; ic < end; ++ic) {
    const float* plane = image + ic * p.in_h * p.in_w;
    for (int64_t r = 0; r < padded_rows_; ++r) {
      float* dst = padded + (ic * padded_rows_ + r) * pitch_;
      std::fill(dst, dst + pitch_, 0.f);
      const int64_t ih = r - p.pad_top;
      if (ih < 0 || ih >= p.in_h) continue;
      const float* src = plane + ih * p.in_w;
      if (p.stride_w == 1) {
        // Padded columns [pad_left, pad_left + in_w), those inside the row.
        const int64_t count = std::min(p.in_w, pitch_ - p.pad_left);
        if (count > 0) std::copy(src, src + count, dst + p.pad_left);
        continue;
      }
      // Padded column j = iw + pad_left goes to half j % 2, entry j / 2:
      // with pad_left = 2q the even input columns start the even half at
      // entry q and the odd ones the odd half at q; with 2q + 1 the odd
      // input columns start the even half at q + 1, the even ones the odd
      // half at q. Columns past the half are never read.
      const int64_t q = p.pad_left / 2;
      const bool odd_pad = p.pad_left % 2 == 1;
      float* even_start = dst + q + (odd_pad ? 1 : 0);  // where src[odd_pad] lands
      float* odd_start = dst + half_ + q;               // where src[1 - odd_pad] lands
      const int64_t room_even = std::max<int64_t>(0, half_ - (q + (odd_pad ? 1 : 0)));
      const int64_t room_odd = std::max<int64_t>(0, half_ - q);
      const int64_t evens = (p.in_w + 1) / 2, odds = p.in_w / 2;
      if (odd_pad) {
        SplitRowColumns(src, odd_start, std::min(evens, room_odd), even_start,
                        std::min(odds, room_even));
      } else {
        SplitRowColumns(src, even_start, std::min(evens, room_even), odd_start,
                        std::min(odds, room_odd));
      }
    }
  }
}

void Conv2dDirect::Run(const float* input, const float* bias, float* output, ThreadPool* pool,
                       float* scratch) const {
  const ref::Conv2DParams& p = params_;
  const int nr = table_.nr, mr = table_.mr;
  const int64_t in_image = p.in_channels * p.in_h * p.in_w;
  const int64_t out_plane = p.out_h * p.out_w;
  const int64_t segments = CeilDiv(p.out_w, nr);
  const int64_t m_tiles = CeilDiv(p.out_channels, mr);
  for (int64_t n = 0; n < p.batch; ++n) {
    ParallelFor(pool, p.in_channels, [&](int64_t begin, int64_t end) {
      FillPadded(input + n * in_image, begin, end, scratch);
    });
    float* image_out = output + n * p.out_channels * out_plane;
    ParallelFor(pool, p.out_h * segments, [&](int64_t begin, int64_t end) {
      for (int64_t task = begin; task < end; ++task) {
        const int64_t oh = task / segments, ow = task % segments * nr;
        const int cols = static_cast<int>(std::min<int64_t>(nr, p.out_w - ow));
        // Tap (ic, kh, kw) of output (oh, ow + j) is at
        // base + offsets_[(ic, kh, kw)] + j: at stride 2, padded column
        // 2 (ow + j) + kw is entry ow + j + kw / 2 of the tap's half.
        const float* base = scratch + oh * p.stride_h * pitch_ + ow;
        for (int64_t mt = 0; mt < m_tiles; ++mt) {
          const int rows = static_cast<int>(std::min<int64_t>(mr, p.out_channels - mt * mr));
          TileEpilogue tile = epilogue_;
          tile.row_bias = bias != nullptr ? bias + mt * mr : nullptr;
          table_.conv_rows(k_, filter_.Panel(mt), base, offsets_.data(),
                           image_out + mt * mr * out_plane + oh * p.out_w + ow, out_plane, rows,
                           cols, tile);
        }
      }
    });
  }
  if (!fused_activation_) {
    ApplyActivation(p.activation, output, p.batch * p.out_channels * out_plane, pool);
  }
}

}  // namespace ops
}  // namespace mace
