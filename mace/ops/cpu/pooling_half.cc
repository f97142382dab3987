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
