// FillPaddedStride2 (cpu/conv_2d_padded_stride2.h) on armv7: the rows'
// constants once per image, in 32 bits, where the generic path computes
// them per row in 64 bits (a stem's 3 x 229 rows, and the padded copies of
// ResNet-18's stride-2 3x3 convolutions, some 12,000 rows), and one vld2
// splitting 4 pairs.
#include <arm_neon.h>

#include <algorithm>

#include "mace/ops/cpu/conv_2d_padded_stride2.h"

namespace mace {
namespace ops {
namespace {

// Zeros to dst[begin, end), a vector at a time and then single floats
// (begin <= end).
inline void ZeroFloats(float* dst, int begin, int end) {
  const float32x4_t zero = vdupq_n_f32(0.f);
  for (; begin + 4 <= end; begin += 4) vst1q_f32(dst + begin, zero);
  for (; begin < end; ++begin) dst[begin] = 0.f;
}

// One padded row of a stride-2 image, in 32-bit counts: src[2 i] to
// first[i] for i < first_count and src[2 i + 1] to second[i] for i <
// second_count, first and second `first_lead` and `second_lead` floats
// into their halves of `row` (`half` floats each); zeros over the rest of
// both halves.
inline void SplitRow(const float* src, float* row, int half, int first_lead, int first_count,
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

}  // namespace

bool FillPaddedStride2(const PaddedStride2Rows& g, const float* image, int64_t begin, int64_t end,
                       float* padded) {
  constexpr int64_t kLimit = int64_t{1} << 28;
  if (!(g.pitch < kLimit && g.in_w < kLimit && g.in_h < kLimit && g.in_h * g.in_w < kLimit &&
        g.rows < kLimit && g.pad_top < kLimit && g.pad_left < g.half)) {
    return false;
  }
  const int q = static_cast<int>(g.pad_left / 2), half = static_cast<int>(g.half);
  const bool odd_pad = g.pad_left % 2 == 1;
  const int room_even = std::max(0, half - (q + (odd_pad ? 1 : 0))), room_odd = half - q;
  const int evens = static_cast<int>((g.in_w + 1) / 2), odds = static_cast<int>(g.in_w / 2);
  // As PaddedImage::Fill: src[0] lands in the odd half at q when pad_left
  // is odd, else in the even half at q; src[1] in the other half.
  const int first_count = std::min(evens, odd_pad ? room_odd : room_even);
  const int second_count = std::min(odds, odd_pad ? room_even : room_odd);
  const int second_lead = odd_pad ? q + 1 : q;
  const int in_w = static_cast<int>(g.in_w), in_h = static_cast<int>(g.in_h);
  const int rows = static_cast<int>(g.rows), pitch = static_cast<int>(g.pitch);
  const int top = static_cast<int>(g.pad_top);
  const float* plane = image + begin * g.in_h * g.in_w;
  float* dst = padded + begin * g.rows * g.pitch;
  for (int64_t ic = begin; ic < end; ++ic, plane += in_h * in_w) {
    for (int r = 0; r < rows; ++r, dst += pitch) {
      const int ih = r - top;
      if (ih < 0 || ih >= in_h) {
        ZeroFloats(dst, 0, pitch);
      } else {
        SplitRow(plane + ih * in_w, dst, half, q, first_count, second_lead, second_count, odd_pad);
      }
    }
  }
  return true;
}

}  // namespace ops
}  // namespace mace
