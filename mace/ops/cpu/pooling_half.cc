#include "mace/ops/cpu/pooling_half.h"

#include <algorithm>

#include "mace/ops/cpu/pooling_half_rows.h"
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
constexpr int16_t kPadding = kHalfKeyPadding;
// The 3x3 stride-2 kernels pad with -infinity (0xfc00), below every value
// for `fmax` and, as an int16, above every other negative half's key.
constexpr int16_t kLowest = static_cast<int16_t>(0xfc00);
// Halves that a global average sums per conversion.
constexpr int64_t kChunk = 256;

inline int16_t Select(int16_t largest, int16_t smallest) {
  return largest >= 0 ? largest : smallest;
}

// line[x] = the maximum of column x over `count` rows from `first`.
void ReduceRows(const int16_t* first, int64_t in_w, int64_t count, int16_t* line) {
  int64_t x = HalfKeyRowVectors(first, in_w, count, line);
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
  int64_t ow = HalfKeyColumnVectors(line, out_w, kernel, stride, out);
  for (; ow < out_w; ++ow) {
    int16_t largest = kPadding, smallest = kPadding;
    for (int64_t k = 0; k < kernel; ++k) {
      largest = std::max(largest, line[ow * stride + k]);
      smallest = std::min(smallest, line[ow * stride + k]);
    }
    out[ow] = Select(largest, smallest);
  }
}

inline void TripleAt(const int16_t* row, int64_t j, int16_t* largest, int16_t* smallest) {
  const int16_t a = row[2 * j], b = row[2 * j + 1], c = row[2 * j + 2];
  *largest = std::max(std::max(a, b), c);
  *smallest = std::min(std::min(a, b), c);
}

// held = the column triples of `row`.
void HoldRow3x3S2(const int16_t* row, int64_t out_w, HeldRow held) {
  int64_t j = HoldRow3x3S2Vectors(row, out_w, held);
  for (; j < out_w; ++j) TripleAt(row, j, held.largest + j, held.smallest + j);
}

// One output row from the window's first row's triples (`first`) and its
// second and third input rows; the third row's triples go to `last` (a
// different line: the last vector overlaps the one before it).
void MaxRow3x3S2(HeldRow first, const int16_t* second, const int16_t* third, int64_t out_w,
                 HeldRow last, int16_t* out) {
  int64_t j = MaxRow3x3S2Vectors(first, second, third, out_w, last, out);
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
  // Half arithmetic where the build has it and the table's CPU has it (the
  // fp16 table's half sums), on rows of at least one whole vector.
  half_max_ = HasHalfMaxRows3x3S2() && three_by_two_ && table.fp16_add != nullptr &&
              p.out_w >= 8;
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
  // The shape in locals: the kernels' stores may alias the parameters.
  const int64_t in_h = p.in_h, in_w = p.in_w, out_h = p.out_h, out_w = p.out_w;
  const int64_t pad_top = p.pad_top, pad_left = p.pad_left;
  const int64_t in_plane = in_h * in_w, out_plane = out_h * out_w;
  const int64_t held_w = RoundUpTo8(out_w), line = line_, per_thread = per_thread_;
  const bool half_max = half_max_;
  // Rows before this one are read in place: the columns the windows use (up
  // to 2 * out_w) are the row's own, and what whole vectors read past them
  // (column 2 * out_w + 1) is in the input, for an image's last row only
  // when the row has that column.
  const int64_t in_place_rows = pad_left != 0          ? 0
                                : 2 * out_w + 1 < in_w ? in_h
                                : 2 * out_w < in_w     ? in_h - 1
                                                       : 0;
  ParallelFor(pool, p.batch * p.channels * out_h, [&](int64_t begin, int64_t end, int chunk) {
    int16_t* base = reinterpret_cast<int16_t*>(scratch + chunk * per_thread);
    int16_t* const copies[2] = {base, base + line};
    const int16_t* padding = base + 2 * line;
    int16_t* held_lines = base + 3 * line;
    const HeldRow held[2] = {{held_lines, held_lines + held_w},
                             {held_lines + 2 * held_w, held_lines + 3 * held_w}};
    // Only the input columns of a copy are written: the rest keeps the
    // padding.
    std::fill(base, base + 3 * line, kLowest);
    for (int64_t item = begin; item < end;) {
      const int64_t plane = item / out_h, first_oh = item % out_h;
      const int64_t last_oh = std::min(out_h, first_oh + (end - item));
      const PlaneRows rows = {reinterpret_cast<const int16_t*>(input) + plane * in_plane,
                              in_h,
                              in_w,
                              pad_left,
                              in_place_rows,
                              {copies[0], copies[1]},
                              padding};
      int16_t* out = reinterpret_cast<int16_t*>(output) + plane * out_plane + first_oh * out_w;
      const int64_t first_row = first_oh * 2 - pad_top;
      if (half_max) {
        HalfMaxRows3x3S2(rows, first_row, last_oh - first_oh, out_w, held[0].largest,
                         held[1].largest, out);
        item += last_oh - first_oh;
        continue;
      }
      // The first row's triples; after that each output row's first row is
      // the last one's third.
      int current = 0;
      HoldRow3x3S2(rows.Get(first_row, 0), out_w, held[0]);
      for (int64_t r = first_row; r < last_oh * 2 - pad_top; r += 2, out += out_w) {
        const int16_t* second = rows.Get(r + 1, 0);
        const int16_t* third = rows.Get(r + 2, 1);
        MaxRow3x3S2(held[current], second, third, out_w, held[current ^ 1], out);
        current ^= 1;
      }
      item += last_oh - first_oh;
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
