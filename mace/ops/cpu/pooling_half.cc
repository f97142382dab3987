#include "mace/ops/cpu/pooling_half.h"

#include <algorithm>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "mace/runtimes/cpu/scratch_buffer.h"

namespace mace {
namespace ops {
namespace {

int64_t RoundUpTo8(int64_t value) { return (value + 7) / 8 * 8; }

// Halves as int16: non-negative halves order as their bits do and come
// above every negative one, among which a larger int16 is a smaller value.
// So the maximum of some halves is their largest int16 when that is not
// negative, else their smallest. The padding is -1 (0xffff, a NaN no
// kernel writes here): never above a value, never below a negative one.
constexpr int16_t kPadding = -1;
// Halves that a global average sums per conversion.
constexpr int64_t kChunk = 256;

inline int16_t Select(int16_t largest, int16_t smallest) {
  return largest >= 0 ? largest : smallest;
}

#if defined(__aarch64__)
inline int16x8_t Select(int16x8_t largest, int16x8_t smallest) {
  return vbslq_s16(vcltzq_s16(largest), smallest, largest);
}
#endif

// line[x] = the maximum of column x over `count` rows from `first`.
void ReduceRows(const int16_t* first, int64_t in_w, int64_t count, int16_t* line) {
  int64_t x = 0;
#if defined(__aarch64__)
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
  for (; x + 8 <= in_w; x += 8) vector_at(x);
  // The last columns again as one whole vector, where there is one.
  if (x < in_w && in_w >= 8) {
    vector_at(in_w - 8);
    x = in_w;
  }
#endif
  for (; x < in_w; ++x) {
    int16_t largest = first[x], smallest = first[x];
    for (int64_t r = 1; r < count; ++r) {
      largest = std::max(largest, first[r * in_w + x]);
      smallest = std::min(smallest, first[r * in_w + x]);
    }
    line[x] = Select(largest, smallest);
  }
}

// out[ow] = the maximum of line[ow * stride + k], k < kernel.
void ReduceColumns(const int16_t* line, int64_t out_w, int64_t kernel, int64_t stride,
                   int16_t* out) {
  int64_t ow = 0;
#if defined(__aarch64__)
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
    int16x8_t largest = vdupq_n_s16(kPadding), smallest = largest;
    for (int64_t k = 0; k < kernel; ++k) {
      const int16_t* src = line + at * stride + k;
      const int16x8_t v = stride == 1 ? vld1q_s16(src) : vld2q_s16(src).val[0];
      largest = vmaxq_s16(largest, v);
      smallest = vminq_s16(smallest, v);
    }
    vst1q_s16(out + at, Select(largest, smallest));
  };
  for (; ow + 8 <= out_w; ow += 8) vector_at(ow);
  if (ow < out_w && out_w >= 8) {
    vector_at(out_w - 8);
    ow = out_w;
  }
#endif
  for (; ow < out_w; ++ow) {
    int16_t largest = kPadding, smallest = kPadding;
    for (int64_t k = 0; k < kernel; ++k) {
      largest = std::max(largest, line[ow * stride + k]);
      smallest = std::min(smallest, line[ow * stride + k]);
    }
    out[ow] = Select(largest, smallest);
  }
}

// 3x3 windows at stride 2 (both ways): each input row's column maxima
// (and minima: see Select) over cells 2j, 2j + 1 and 2j + 2 are found once
// and serve the two output rows whose windows share that row. `row` is in
// padded coordinates and readable up to column 2 * out_w + 1.
struct HeldRow {
  int16_t* largest;
  int16_t* smallest;
};

#if defined(__aarch64__)
// Cells 2j, 2j + 1 and 2j + 2 of `row` for j = at .. at + 7: both halves of
// one pair load and the even half of the next.
inline void Triples(const int16_t* row, int64_t at, int16x8_t* largest, int16x8_t* smallest) {
  const int16x8x2_t pairs = vld2q_s16(row + 2 * at);
  const int16x8_t next = vld2q_s16(row + 2 * at + 2).val[0];
  *largest = vmaxq_s16(vmaxq_s16(pairs.val[0], pairs.val[1]), next);
  *smallest = vminq_s16(vminq_s16(pairs.val[0], pairs.val[1]), next);
}
#endif

inline void TripleAt(const int16_t* row, int64_t j, int16_t* largest, int16_t* smallest) {
  const int16_t a = row[2 * j], b = row[2 * j + 1], c = row[2 * j + 2];
  *largest = std::max(std::max(a, b), c);
  *smallest = std::min(std::min(a, b), c);
}

// held = the column triples of `row`.
void HoldRow3x3S2(const int16_t* row, int64_t out_w, HeldRow held) {
  int64_t j = 0;
#if defined(__aarch64__)
  const auto vector_at = [&](int64_t at) {
    int16x8_t largest, smallest;
    Triples(row, at, &largest, &smallest);
    vst1q_s16(held.largest + at, largest);
    vst1q_s16(held.smallest + at, smallest);
  };
  for (; j + 8 <= out_w; j += 8) vector_at(j);
  // The last columns again as one whole vector, where there is one.
  if (j < out_w && out_w >= 8) {
    vector_at(out_w - 8);
    j = out_w;
  }
#endif
  for (; j < out_w; ++j) TripleAt(row, j, held.largest + j, held.smallest + j);
}

// One output row from the window's first row's triples (`first`) and its
// second and third input rows; the third row's triples go to `last` (a
// different line: the last vector overlaps the one before it).
void MaxRow3x3S2(HeldRow first, const int16_t* second, const int16_t* third, int64_t out_w,
                 HeldRow last, int16_t* out) {
  int64_t j = 0;
#if defined(__aarch64__)
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
  for (; j + 8 <= out_w; j += 8) vector_at(j);
  if (j < out_w && out_w >= 8) {
    vector_at(out_w - 8);
    j = out_w;
  }
#endif
  for (; j < out_w; ++j) {
    int16_t b_largest, b_smallest;
    TripleAt(second, j, &b_largest, &b_smallest);
    TripleAt(third, j, last.largest + j, last.smallest + j);
    out[j] = Select(std::max(std::max(first.largest[j], b_largest), last.largest[j]),
                    std::min(std::min(first.smallest[j], b_smallest), last.smallest[j]));
  }
}

}  // namespace

bool HalfPooling::Supports(const KernelTable& table, const ref::PoolingParams& p) {
  if (table.fp16_to_float == nullptr || table.fp16_from_float == nullptr ||
      table.plane_sum == nullptr || p.dilation_h != 1 || p.dilation_w != 1) {
    return false;
  }
  if (p.type == ref::PoolingType::AVG) {
    return p.out_h == 1 && p.out_w == 1 && p.kernel_h == p.in_h && p.kernel_w == p.in_w &&
           p.pad_top == 0 && p.pad_left == 0 && p.pad_bottom == 0 && p.pad_right == 0;
  }
  if (p.type != ref::PoolingType::MAX || (p.stride_w != 1 && p.stride_w != 2)) return false;
  // Every window covers an input row and column: the first and the last.
  const auto covers = [](int64_t out, int64_t stride, int64_t kernel, int64_t size, int64_t pad) {
    return out > 0 && pad < kernel && (out - 1) * stride - pad < size;
  };
  return covers(p.out_h, p.stride_h, p.kernel_h, p.in_h, p.pad_top) &&
         covers(p.out_w, p.stride_w, p.kernel_w, p.in_w, p.pad_left);
}

HalfPooling::HalfPooling(const KernelTable& table, const ref::PoolingParams& params)
    : table_(table), params_(params) {
  const ref::PoolingParams& p = params_;
  global_average_ = p.type == ref::PoolingType::AVG;
  if (global_average_) {
    per_thread_ = ThreadRegionFloats(kChunk);
    return;
  }
  // The padded row, and what whole vectors of outputs read (pairs of keys
  // at stride 2, so one more key).
  line_ = std::max(p.pad_left + p.in_w, RoundUpTo8(p.out_w) * p.stride_w + p.kernel_w + 1);
  per_thread_ = ThreadRegionFloats((line_ + 1) / 2);
  three_by_two_ = p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 2 && p.stride_w == 2;
  if (three_by_two_) {
    // Two copied rows and a row of padding, then two lines of held triples
    // (largest and smallest each).
    per_thread_ = ThreadRegionFloats((3 * line_ + 4 * RoundUpTo8(p.out_w) + 1) / 2);
  }
}

int64_t HalfPooling::ScratchBytes(int threads) const {
  return threads * per_thread_ * static_cast<int64_t>(sizeof(float));
}

void HalfPooling::Run(const uint16_t* input, uint16_t* output, ThreadPool* pool,
                      float* scratch) const {
  if (global_average_) return RunGlobalAverage(input, output, pool, scratch);
  RunMax(input, output, pool, scratch);
}

void HalfPooling::RunMax(const uint16_t* input, uint16_t* output, ThreadPool* pool,
                         float* scratch) const {
  if (three_by_two_) return RunMax3x3S2(input, output, pool, scratch);
  const ref::PoolingParams& p = params_;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  ParallelFor(pool, p.batch * p.channels * p.out_h, [&](int64_t begin, int64_t end, int chunk) {
    int16_t* line = reinterpret_cast<int16_t*>(scratch + chunk * per_thread_);
    // Only the input columns are written: the padding keeps the lowest key.
    std::fill(line, line + line_, kPadding);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t plane = item / p.out_h, oh = item % p.out_h;
      const int64_t start = oh * p.stride_h - p.pad_top;
      const int64_t first = std::max<int64_t>(start, 0);
      const int64_t count = std::min(start + p.kernel_h, p.in_h) - first;
      ReduceRows(reinterpret_cast<const int16_t*>(input) + plane * in_plane + first * p.in_w,
                 p.in_w, count, line + p.pad_left);
      ReduceColumns(line, p.out_w, p.kernel_w, p.stride_w,
                    reinterpret_cast<int16_t*>(output) + plane * out_plane + oh * p.out_w);
    }
  });
}

void HalfPooling::RunMax3x3S2(const uint16_t* input, uint16_t* output, ThreadPool* pool,
                              float* scratch) const {
  const ref::PoolingParams& p = params_;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int64_t held_w = RoundUpTo8(p.out_w);
  // Rows are read in place when the columns the windows use (up to 2 *
  // out_w) are the row's own and what whole vectors read past them (column
  // 2 * out_w + 1) is in the input: always, or but for an image's last row.
  const bool in_place = p.pad_left == 0 && 2 * p.out_w + 1 < p.in_w;
  const bool in_place_but_last = p.pad_left == 0 && 2 * p.out_w < p.in_w;
  ParallelFor(pool, p.batch * p.channels * p.out_h, [&](int64_t begin, int64_t end, int chunk) {
    int16_t* base = reinterpret_cast<int16_t*>(scratch + chunk * per_thread_);
    int16_t* second_copy = base;
    int16_t* third_copy = base + line_;
    const int16_t* padding = base + 2 * line_;
    int16_t* held_lines = base + 3 * line_;
    HeldRow held[2] = {{held_lines, held_lines + held_w},
                       {held_lines + 2 * held_w, held_lines + 3 * held_w}};
    // Only the input columns of a copy are written: the rest keeps the
    // padding.
    std::fill(base, base + 3 * line_, kPadding);
    int current = 0;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t plane = item / p.out_h, oh = item % p.out_h;
      const int16_t* image = reinterpret_cast<const int16_t*>(input) + plane * in_plane;
      // Input row r in padded coordinates: in place, copied or padding.
      const auto row = [&](int64_t r, int16_t* copy) -> const int16_t* {
        if (r < 0 || r >= p.in_h) return padding;
        const int16_t* data = image + r * p.in_w;
        if (in_place || (in_place_but_last && r + 1 < p.in_h)) return data;
        std::copy(data, data + p.in_w, copy + p.pad_left);
        return copy;
      };
      const int64_t first = oh * 2 - p.pad_top;
      // The first row's triples are the last output row's third row's,
      // unless this is the first output row of a plane or of the range.
      if (item == begin || oh == 0) HoldRow3x3S2(row(first, second_copy), p.out_w, held[current]);
      MaxRow3x3S2(held[current], row(first + 1, second_copy), row(first + 2, third_copy), p.out_w,
                  held[1 - current],
                  reinterpret_cast<int16_t*>(output) + plane * out_plane + oh * p.out_w);
      current = 1 - current;
    }
  });
}

void HalfPooling::RunGlobalAverage(const uint16_t* input, uint16_t* output, ThreadPool* pool,
                                   float* scratch) const {
  const int64_t plane_size = params_.in_h * params_.in_w;
  const float divisor = static_cast<float>(plane_size);
  ParallelFor(pool, params_.batch * params_.channels, [&](int64_t begin, int64_t end, int chunk) {
    float* values = scratch + chunk * per_thread_;
    for (int64_t plane = begin; plane < end; ++plane) {
      const uint16_t* data = input + plane * plane_size;
      float sum = 0.f;
      for (int64_t at = 0; at < plane_size; at += kChunk) {
        const int64_t count = std::min(kChunk, plane_size - at);
        table_.fp16_to_float(data + at, count, values);
        sum += table_.plane_sum(values, count);
      }
      values[0] = sum / divisor;
      table_.fp16_from_float(values, 1, output + plane);
    }
  });
}

}  // namespace ops
}  // namespace mace
