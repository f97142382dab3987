#include "mace/ops/cpu/conv_2d_padded_image.h"

#include <algorithm>
#include <type_traits>

#include "mace/ops/cpu/conv_2d_padded_stride2.h"
#include "mace/ops/cpu/conv_2d_split_columns.h"
#include "mace/ops/cpu/conv_2d_zero_floats.h"

namespace mace {
namespace ops {
namespace {

constexpr int64_t kCacheLineFloats = 16;

int64_t RoundUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

// Zeroes the values of a row section outside [begin, end), the part the
// row's data goes to next, in whole groups of 4 from the section's start
// (the data then overwrites the extra): a stride-2 stem row of 224 had a
// 256-float memset of which 31 values stay zero.
template <typename T>
void ZeroValues(T* values, int64_t count) {
  std::fill(values, values + count, T(0));
}
// Floats through the port's own zeroing (conv_2d_zero_floats.h).
void ZeroValues(float* values, int64_t count) { ZeroFloatRun(values, count); }

template <typename T>
void ZeroAround(T* section, int64_t size, int64_t begin, int64_t end) {
  constexpr int64_t kGroup = 4;
  if (end <= begin) {
    ZeroValues(section, size);
    return;
  }
  ZeroValues(section, std::min(size, RoundUp(begin, kGroup)));
  const int64_t tail = std::min(end, size) / kGroup * kGroup;
  ZeroValues(section + tail, size - tail);
}

}  // namespace

bool PaddedImage::Supports(const ref::Conv2DParams& p) {
  return p.dilation_h == 1 && p.dilation_w == 1 && (p.stride_w == 1 || p.stride_w == 2) &&
         p.stride_h >= 1;
}

PaddedImage::PaddedImage(const ref::Conv2DParams& p, int64_t channels, int64_t columns)
    : in_h_(p.in_h),
      in_w_(p.in_w),
      pad_top_(p.pad_top),
      pad_left_(p.pad_left),
      stride_h_(p.stride_h),
      stride_w_(p.stride_w),
      channels_(channels) {
  // Output row oh reads padded rows oh * stride_h + kh.
  rows_ = (p.out_h - 1) * p.stride_h + p.kernel_h;
  if (p.stride_w == 1) {
    half_ = 0;
    pitch_ = RoundUp(columns + p.kernel_w - 1, kCacheLineFloats);
  } else {
    // Padded column 2 * ow + kw is entry ow + kw / 2 of half kw % 2.
    half_ = RoundUp(columns + p.kernel_w / 2, kCacheLineFloats);
    pitch_ = 2 * half_;
  }
  offsets_.resize(channels * p.kernel_h * p.kernel_w);
  for (int64_t ic = 0; ic < channels; ++ic) {
    for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
        const int64_t column = p.stride_w == 1 ? kw : (kw % 2) * half_ + kw / 2;
        offsets_[(ic * p.kernel_h + kh) * p.kernel_w + kw] = (ic * rows_ + kh) * pitch_ + column;
      }
    }
  }
}

template <typename T>
void PaddedImage::Fill(const T* image, int64_t begin, int64_t end, T* padded) const {
  // Floats at stride 2 where the port has its own fill (armv7).
  if constexpr (std::is_same<T, float>::value) {
    if (stride_w_ == 2 &&
        FillPaddedStride2({in_h_, in_w_, pad_top_, pad_left_, rows_, half_, pitch_}, image, begin,
                          end, padded)) {
      return;
    }
  }
  // Halves: a row zeroed whole by one memset, where the ranges around its
  // data (a call and up to two memsets for each half row) cost
  // 1.2 M instructions more on ResNet-18's fp16 stride-2 copies.
  constexpr bool kWholeRows = std::is_same<T, uint16_t>::value;
  for (int64_t ic = begin; ic < end; ++ic) {
    const T* plane = image + ic * in_h_ * in_w_;
    for (int64_t r = 0; r < rows_; ++r) {
      T* dst = padded + (ic * rows_ + r) * pitch_;
      const int64_t ih = r - pad_top_;
      if (ih < 0 || ih >= in_h_) {
        ZeroValues(dst, pitch_);
        continue;
      }
      const T* src = plane + ih * in_w_;
      if (stride_w_ == 1) {
        // Padded columns [pad_left, pad_left + in_w), those inside the row.
        const int64_t count = std::min(in_w_, pitch_ - pad_left_);
        if (kWholeRows) {
          ZeroValues(dst, pitch_);
        } else {
          ZeroAround(dst, pitch_, pad_left_, pad_left_ + std::max<int64_t>(count, 0));
        }
        if (count > 0) std::copy(src, src + count, dst + pad_left_);
        continue;
      }
      // Padded column j = iw + pad_left goes to half j % 2, entry j / 2:
      // with pad_left = 2q the even input columns start the even half at
      // entry q and the odd ones the odd half at q; with 2q + 1 the odd
      // input columns start the even half at q + 1, the even ones the odd
      // half at q. Columns past the half are never read.
      const int64_t q = pad_left_ / 2;
      const bool odd_pad = pad_left_ % 2 == 1;
      T* even_start = dst + q + (odd_pad ? 1 : 0);  // where src[odd_pad] lands
      T* odd_start = dst + half_ + q;               // where src[1 - odd_pad] lands
      const int64_t room_even = std::max<int64_t>(0, half_ - (q + (odd_pad ? 1 : 0)));
      const int64_t room_odd = std::max<int64_t>(0, half_ - q);
      const int64_t evens = (in_w_ + 1) / 2, odds = in_w_ / 2;
      // Each half zeroed but for the entries its columns go to.
      const int64_t even_begin = q + (odd_pad ? 1 : 0);
      const int64_t even_count = std::min(odd_pad ? odds : evens, room_even);
      const int64_t odd_count = std::min(odd_pad ? evens : odds, room_odd);
      if (kWholeRows) {
        ZeroValues(dst, pitch_);
      } else {
        ZeroAround(dst, half_, even_begin, even_begin + std::max<int64_t>(even_count, 0));
        ZeroAround(dst + half_, half_, q, q + std::max<int64_t>(odd_count, 0));
      }
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

template void PaddedImage::Fill(const float*, int64_t, int64_t, float*) const;
template void PaddedImage::Fill(const uint16_t*, int64_t, int64_t, uint16_t*) const;

}  // namespace ops
}  // namespace mace
