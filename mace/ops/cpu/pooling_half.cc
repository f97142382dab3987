#include "mace/ops/cpu/pooling_half.h"

#include <algorithm>
#include <limits>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "mace/runtimes/cpu/scratch_buffer.h"

namespace mace {
namespace ops {
namespace {

// Keys: a half's bits as int16, with a negative half's magnitude bits
// flipped, so that keys order as the values do (-0 just below +0). The map
// is its own inverse.
inline int16_t Key(uint16_t half) {
  const int16_t s = static_cast<int16_t>(half);
  return static_cast<int16_t>(s ^ ((s >> 15) & 0x7fff));
}
inline uint16_t Half(int16_t key) { return static_cast<uint16_t>(Key(static_cast<uint16_t>(key))); }

int64_t RoundUpTo8(int64_t value) { return (value + 7) / 8 * 8; }

constexpr int16_t kLowest = std::numeric_limits<int16_t>::min();
// Halves that a global average sums per conversion.
constexpr int64_t kChunk = 256;

#if defined(__aarch64__)
inline int16x8_t KeyVector(int16x8_t s) {
  return veorq_s16(s, vandq_s16(vshrq_n_s16(s, 15), vdupq_n_s16(0x7fff)));
}
#endif

// line[x] = the largest key of column x over `count` rows from `first`.
void ReduceRows(const uint16_t* first, int64_t in_w, int64_t count, int16_t* line) {
  int64_t x = 0;
#if defined(__aarch64__)
  for (; x + 8 <= in_w; x += 8) {
    int16x8_t best = KeyVector(vld1q_s16(reinterpret_cast<const int16_t*>(first + x)));
    for (int64_t r = 1; r < count; ++r) {
      const int16_t* row = reinterpret_cast<const int16_t*>(first + r * in_w + x);
      best = vmaxq_s16(best, KeyVector(vld1q_s16(row)));
    }
    vst1q_s16(line + x, best);
  }
#endif
  for (; x < in_w; ++x) {
    int16_t best = Key(first[x]);
    for (int64_t r = 1; r < count; ++r) best = std::max(best, Key(first[r * in_w + x]));
    line[x] = best;
  }
}

// out[ow] = the largest of line[ow * stride + k], k < kernel, as a half.
void ReduceColumns(const int16_t* line, int64_t out_w, int64_t kernel, int64_t stride,
                   uint16_t* out) {
  int64_t ow = 0;
#if defined(__aarch64__)
  const auto vector_at = [&](int64_t at) {
    int16x8_t best = vdupq_n_s16(kLowest);
    for (int64_t k = 0; k < kernel; ++k) {
      const int16_t* src = line + at * stride + k;
      best = vmaxq_s16(best, stride == 1 ? vld1q_s16(src) : vld2q_s16(src).val[0]);
    }
    vst1q_u16(out + at, vreinterpretq_u16_s16(KeyVector(best)));
  };
  for (; ow + 8 <= out_w; ow += 8) vector_at(ow);
  // The last outputs again as one whole vector, where there is one.
  if (ow < out_w && out_w >= 8) {
    vector_at(out_w - 8);
    ow = out_w;
  }
#endif
  for (; ow < out_w; ++ow) {
    int16_t best = kLowest;
    for (int64_t k = 0; k < kernel; ++k) best = std::max(best, line[ow * stride + k]);
    out[ow] = Half(best);
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
    std::fill(line, line + line_, kLowest);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t plane = item / p.out_h, oh = item % p.out_h;
      const int64_t start = oh * p.stride_h - p.pad_top;
      const int64_t first = std::max<int64_t>(start, 0);
      const int64_t count = std::min(start + p.kernel_h, p.in_h) - first;
      ReduceRows(input + plane * in_plane + first * p.in_w, p.in_w, count, line + p.pad_left);
      ReduceColumns(line, p.out_w, p.kernel_w, p.stride_w,
                    output + plane * out_plane + oh * p.out_w);
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
