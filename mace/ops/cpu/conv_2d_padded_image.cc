#include "mace/ops/cpu/conv_2d_padded_image.h"

#include <algorithm>
#include <type_traits>

#include "mace/ops/cpu/conv_2d_split_columns.h"

#if defined(__ARM_NEON) && !defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace mace {
namespace ops {
namespace {

constexpr int64_t kCacheLineFloats = 16;

int64_t RoundUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

#if defined(__ARM_NEON) && !defined(__aarch64__)
// armv7: zeros to dst[begin, end), a vector at a time and then single
// floats (begin <= end).
inline void ZeroFloats(float* dst, int begin, int end) {
  const float32x4_t zero = vdupq_n_f32(0.f);
  for (; begin + 4 <= end; begin += 4) vst1q_f32(dst + begin, zero);
  for (; begin < end; ++begin) dst[begin] = 0.f;
}

// armv7: one padded row of a stride-2 image, in 32-bit counts: src[2 i]
// to first[i] for i < first_count and src[2 i + 1] to second[i] for i <
// second_count, first and second `first_lead` and `second_lead` floats
// into their halves of `row` (`half` floats each); zeros over the rest of
// both halves. One vld2 splits 4 pairs; the row's constants come from the
// caller once per image, where the generic path computed them per row in
// 64 bits (a stem's 3 x 229 rows, and the padded copies of ResNet-18's
// stride-2 3x3 convolutions, some 12,000 rows).
inline void SplitRowArmv7(const float* src, float* row, int half, int first_lead, int first_count,
                          int second_lead, int second_count, bool first_odd_half) {
  float* const first = row + (first_odd_half ? half : 0) + first_lead;
  float* const second = row + (first_odd_half ? 0 : half) + second_lead;
  const int pairs = std::min(first_count, second_count);
  int i = 0;
  for (; i + 8 <= pairs; i += 8) {
    const float32x4x2_t lo = vld2q_f32(src + 2 * i), hi = vld2q_f32(src + 2 * i + 8);
    vst1q_f32(first + i, lo.val[0]);
    vst1q_f32(first + i + 4, hi.val[0]);
    vst1q_f32(second + i, lo.val[1]);
    vst1q_f32(second + i + 4, hi.val[1]);
  }
  if (i + 4 <= pairs) {
    const float32x4x2_t four = vld2q_f32(src + 2 * i);
    vst1q_f32(first + i, four.val[0]);
    vst1q_f32(second + i, four.val[1]);
    i += 4;
  }
  for (int k = i; k < first_count; ++k) first[k] = src[2 * k];
  for (int k = i; k < second_count; ++k) second[k] = src[2 * k + 1];
  // Zeros before each run and after it to its half's end.
  float* const first_half = row + (first_odd_half ? half : 0);
  float* const second_half = row + (first_odd_half ? 0 : half);
  ZeroFloats(first_half, 0, first_lead);
  ZeroFloats(first_half, first_lead + first_count, half);
  ZeroFloats(second_half, 0, second_lead);
  ZeroFloats(second_half, second_lead + second_count, half);
}
#endif

// Zeroes the values of a row section outside [begin, end), the part the
// row's data goes to next, in whole groups of 4 from the section's start
// (the data then overwrites the extra): a stride-2 stem row of 224 had a
// 256-float memset of which 31 values stay zero.
template <typename T>
void ZeroValues(T* values, int64_t count) {
  std::fill(values, values + count, T(0));
}
#if defined(__aarch64__)
// A few vectors stored in a loop: memset's call and size dispatch cost
// more than the stores of these short ranges.
void ZeroValues(float* values, int64_t count) {
  if (count % 4 != 0) {
    std::fill(values, values + count, 0.f);
    return;
  }
  if (count == 0) return;
  __asm__ volatile(
      "movi v0.16b, #0\n"
      "1:\n"
      "str q0, [%[p]], #16\n"
      "subs %[n], %[n], #4\n"
      "b.ne 1b\n"
      : [p] "+r"(values), [n] "+r"(count)
      :
      : "cc", "memory", "v0");
}
#endif

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
#if defined(__ARM_NEON) && !defined(__aarch64__)
  // armv7, floats at stride 2: the rows' constants once, in 32 bits.
  constexpr int64_t kLimit = int64_t{1} << 28;
  if (std::is_same<T, float>::value && stride_w_ == 2 && pitch_ < kLimit && in_w_ < kLimit &&
      in_h_ < kLimit && in_h_ * in_w_ < kLimit && rows_ < kLimit && pad_top_ < kLimit &&
      pad_left_ < half_) {
    const int q = static_cast<int>(pad_left_ / 2), half = static_cast<int>(half_);
    const bool odd_pad = pad_left_ % 2 == 1;
    const int room_even = std::max(0, half - (q + (odd_pad ? 1 : 0))), room_odd = half - q;
    const int evens = static_cast<int>((in_w_ + 1) / 2), odds = static_cast<int>(in_w_ / 2);
    // As below: src[0] lands in the odd half at q when pad_left is odd,
    // else in the even half at q; src[1] in the other half.
    const int first_count = std::min(evens, odd_pad ? room_odd : room_even);
    const int second_count = std::min(odds, odd_pad ? room_even : room_odd);
    const int second_lead = odd_pad ? q + 1 : q;
    const int in_w = static_cast<int>(in_w_), in_h = static_cast<int>(in_h_);
    const int rows = static_cast<int>(rows_), pitch = static_cast<int>(pitch_);
    const int top = static_cast<int>(pad_top_);
    const float* plane = reinterpret_cast<const float*>(image) + begin * in_h_ * in_w_;
    float* dst = reinterpret_cast<float*>(padded) + begin * rows_ * pitch_;
    for (int64_t ic = begin; ic < end; ++ic, plane += in_h * in_w) {
      for (int r = 0; r < rows; ++r, dst += pitch) {
        const int ih = r - top;
        if (ih < 0 || ih >= in_h) {
          ZeroFloats(dst, 0, pitch);
        } else {
          SplitRowArmv7(plane + ih * in_w, dst, half, q, first_count, second_lead, second_count,
                        odd_pad);
        }
      }
    }
    return;
  }
#endif
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
