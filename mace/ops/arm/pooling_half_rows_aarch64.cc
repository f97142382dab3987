// The half max pooling's vector parts (cpu/pooling_half_rows.h) on arm64:
// eight int16 keys per NEON max and min; and the 3x3 stride-2 rows in half
// arithmetic, in functions built for ARMv8.2 FP16 (this file gets no other
// ISA flags).
#include <arm_neon.h>

#include <utility>

#include "mace/ops/cpu/pooling_half_rows.h"

namespace mace {
namespace ops {
namespace {

// The maximum of some halves is their largest int16 key when that is not
// negative, else their smallest (see pooling_half.h).
inline int16x8_t Select(int16x8_t largest, int16x8_t smallest) {
  return vbslq_s16(vcltzq_s16(largest), smallest, largest);
}

// vector_at(at) for whole vectors of 8 of n columns, the last columns
// again as one whole vector where there is one (overlapping the one
// before); returns the columns done (0 when n < 8).
template <typename VectorAt>
inline int64_t ForEachVector(int64_t n, const VectorAt& vector_at) {
  int64_t x = 0;
  for (; x + 8 <= n; x += 8) vector_at(x);
  if (x < n && n >= 8) {
    vector_at(n - 8);
    x = n;
  }
  return x;
}

// Cells 2j, 2j + 1 and 2j + 2 of `row` for j = at .. at + 7: both halves of
// one pair load and the even half of the next.
inline void Triples(const int16_t* row, int64_t at, int16x8_t* largest, int16x8_t* smallest) {
  const int16x8x2_t pairs = vld2q_s16(row + 2 * at);
  const int16x8_t next = vld2q_s16(row + 2 * at + 2).val[0];
  *largest = vmaxq_s16(vmaxq_s16(pairs.val[0], pairs.val[1]), next);
  *smallest = vminq_s16(vminq_s16(pairs.val[0], pairs.val[1]), next);
}

}  // namespace

int64_t HalfKeyRowVectors(const int16_t* first, int64_t in_w, int64_t count, int16_t* line) {
  const auto vector_at = [&](int64_t at) {
    int16x8_t largest = vld1q_s16(first + at), smallest = largest;
    if (count == 3) {
      // 3x3 windows: the rows unrolled.
      const int16x8_t b = vld1q_s16(first + in_w + at), c = vld1q_s16(first + 2 * in_w + at);
      largest = vmaxq_s16(vmaxq_s16(largest, b), c);
      smallest = vminq_s16(vminq_s16(smallest, b), c);
    } else {
      for (int64_t r = 1; r < count; ++r) {
        const int16x8_t v = vld1q_s16(first + r * in_w + at);
        largest = vmaxq_s16(largest, v);
        smallest = vminq_s16(smallest, v);
      }
    }
    vst1q_s16(line + at, Select(largest, smallest));
  };
  return ForEachVector(in_w, vector_at);
}

int64_t HalfKeyColumnVectors(const int16_t* line, int64_t out_w, int64_t kernel,
                             int64_t stride, int16_t* out) {
  const auto vector_at = [&](int64_t at) {
    if (kernel == 3 && stride == 2) {
      // Cells 2j, 2j + 1 and 2j + 2: both halves of one pair load and the
      // even half of the next.
      const int16x8x2_t pairs = vld2q_s16(line + 2 * at);
      const int16x8_t next = vld2q_s16(line + 2 * at + 2).val[0];
      const int16x8_t largest = vmaxq_s16(vmaxq_s16(pairs.val[0], pairs.val[1]), next);
      const int16x8_t smallest = vminq_s16(vminq_s16(pairs.val[0], pairs.val[1]), next);
      vst1q_s16(out + at, Select(largest, smallest));
      return;
    }
    int16x8_t largest = vdupq_n_s16(kHalfKeyPadding), smallest = largest;
    for (int64_t k = 0; k < kernel; ++k) {
      const int16_t* src = line + at * stride + k;
      const int16x8_t v = stride == 1 ? vld1q_s16(src) : vld2q_s16(src).val[0];
      largest = vmaxq_s16(largest, v);
      smallest = vminq_s16(smallest, v);
    }
    vst1q_s16(out + at, Select(largest, smallest));
  };
  return ForEachVector(out_w, vector_at);
}

int64_t HoldRow3x3S2Vectors(const int16_t* row, int64_t out_w, HeldRow held) {
  const auto vector_at = [&](int64_t at) {
    int16x8_t largest, smallest;
    Triples(row, at, &largest, &smallest);
    vst1q_s16(held.largest + at, largest);
    vst1q_s16(held.smallest + at, smallest);
  };
  return ForEachVector(out_w, vector_at);
}

int64_t MaxRow3x3S2Vectors(HeldRow first, const int16_t* second, const int16_t* third,
                           int64_t out_w, HeldRow last, int16_t* out) {
  const auto vector_at = [&](int64_t at) {
    int16x8_t b_largest, b_smallest, c_largest, c_smallest;
    Triples(second, at, &b_largest, &b_smallest);
    Triples(third, at, &c_largest, &c_smallest);
    vst1q_s16(last.largest + at, c_largest);
    vst1q_s16(last.smallest + at, c_smallest);
    const int16x8_t largest =
        vmaxq_s16(vmaxq_s16(vld1q_s16(first.largest + at), b_largest), c_largest);
    const int16x8_t smallest =
        vminq_s16(vminq_s16(vld1q_s16(first.smallest + at), b_smallest), c_smallest);
    vst1q_s16(out + at, Select(largest, smallest));
  };
  return ForEachVector(out_w, vector_at);
}

namespace {

#if defined(__clang__)
// clang 14 names the feature fullfp16, and its arm_neon.h declares the half
// arithmetic intrinsics only for a file built with it: `fmax` is written out.
#define MACE_HALF_ARITHMETIC __attribute__((target("fullfp16")))

MACE_HALF_ARITHMETIC inline __attribute__((always_inline)) float16x8_t HalfMax(float16x8_t a,
                                                                               float16x8_t b) {
  float16x8_t max;
  asm("fmax %0.8h, %1.8h, %2.8h" : "=w"(max) : "w"(a), "w"(b));
  return max;
}
#else
#define MACE_HALF_ARITHMETIC __attribute__((target("arch=armv8.2-a+fp16")))

MACE_HALF_ARITHMETIC inline __attribute__((always_inline)) float16x8_t HalfMax(float16x8_t a,
                                                                               float16x8_t b) {
  return vmaxq_f16(a, b);
}
#endif

MACE_HALF_ARITHMETIC inline __attribute__((always_inline)) float16x8_t HalfTriples(
    const int16_t* row, int64_t at) {
  const float16_t* halves = reinterpret_cast<const float16_t*>(row) + 2 * at;
  const float16x8x2_t pairs = vld2q_f16(halves);
  const float16x8_t next = vld2q_f16(halves + 2).val[0];
  return HalfMax(HalfMax(pairs.val[0], pairs.val[1]), next);
}

MACE_HALF_ARITHMETIC inline __attribute__((always_inline)) void HalfMaxVector(
    const float16_t* first, const int16_t* second, const int16_t* third, int64_t at,
    float16_t* last, float16_t* out) {
  const float16x8_t c = HalfTriples(third, at);
  vst1q_f16(last + at, c);
  vst1q_f16(out + at, HalfMax(HalfMax(vld1q_f16(first + at), HalfTriples(second, at)), c));
}

}  // namespace

bool HasHalfMaxRows3x3S2() { return true; }

MACE_HALF_ARITHMETIC void HalfMaxRows3x3S2(const PlaneRows& plane, int64_t first_row,
                                           int64_t count, int64_t out_w, int16_t* held,
                                           int16_t* other, int16_t* out) {
  const PlaneRows rows = plane;  // in locals: the stores may alias it
  float16_t* first = reinterpret_cast<float16_t*>(held);
  float16_t* last = reinterpret_cast<float16_t*>(other);
  float16_t* dst = reinterpret_cast<float16_t*>(out);
  const int16_t* top = rows.Get(first_row, 0);
  int64_t j = 0;
  for (; j + 8 <= out_w; j += 8) vst1q_f16(first + j, HalfTriples(top, j));
  if (j < out_w) vst1q_f16(first + out_w - 8, HalfTriples(top, out_w - 8));
  for (int64_t r = first_row; r < first_row + 2 * count; r += 2, dst += out_w) {
    const int16_t* second = rows.Get(r + 1, 0);
    const int16_t* third = rows.Get(r + 2, 1);
    for (j = 0; j + 8 <= out_w; j += 8) HalfMaxVector(first, second, third, j, last, dst);
    if (j < out_w) HalfMaxVector(first, second, third, out_w - 8, last, dst);
    std::swap(first, last);
  }
}

}  // namespace ops
}  // namespace mace
