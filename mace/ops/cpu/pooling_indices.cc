#include "mace/ops/cpu/pooling_indices.h"

#include <algorithm>

namespace mace {
namespace ops {
namespace {

// Smallest k >= 0 with start + k * dilation >= bound, for start < bound.
int64_t FirstTapAtOrAfter(int64_t start, int64_t bound, int64_t dilation) {
  return (bound - start + dilation - 1) / dilation;
}

}  // namespace

MaxPoolingIndicesKernel::MaxPoolingIndicesKernel(const ref::PoolingParams& params,
                                                 bool column_major)
    : params_(params), column_major_(column_major) {
  const auto ranges = [](int64_t outputs, int64_t stride, int64_t pad, int64_t kernel,
                         int64_t dilation, int64_t size) {
    std::vector<TapRange> result(outputs);
    for (int64_t o = 0; o < outputs; ++o) {
      const int64_t start = o * stride - pad;
      TapRange& range = result[o];
      range.begin = start >= 0 ? 0 : FirstTapAtOrAfter(start, 0, dilation);
      range.end = start >= size ? 0 : FirstTapAtOrAfter(start, size, dilation);
      range.begin = std::min(range.begin, kernel);
      range.end = std::min(range.end, kernel);
      if (range.end < range.begin) range.end = range.begin;
    }
    return result;
  };
  const ref::PoolingParams& p = params_;
  rows_ = ranges(p.out_h, p.stride_h, p.pad_top, p.kernel_h, p.dilation_h, p.in_h);
  columns_ = ranges(p.out_w, p.stride_w, p.pad_left, p.kernel_w, p.dilation_w, p.in_w);
}

void MaxPoolingIndicesKernel::Run(const float* input, float* output, int32_t* indices,
                                  ThreadPool* pool) const {
  const ref::PoolingParams& p = params_;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  ParallelFor(pool, p.batch * p.channels * p.out_h, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t plane = item / p.out_h, oh = item % p.out_h;
      const float* in = input + plane * in_plane;
      float* out = output + plane * out_plane + oh * p.out_w;
      int32_t* out_indices = indices + plane * out_plane + oh * p.out_w;
      const TapRange rows = rows_[oh];
      const int64_t row0 = oh * p.stride_h - p.pad_top;
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const TapRange columns = columns_[ow];
        const int64_t col0 = ow * p.stride_w - p.pad_left;
        float best = 0.f;
        int64_t best_h = -1, best_w = -1;
        for (int64_t kh = rows.begin; kh < rows.end; ++kh) {
          const int64_t ih = row0 + kh * p.dilation_h;
          const float* line = in + ih * p.in_w;
          for (int64_t kw = columns.begin; kw < columns.end; ++kw) {
            const int64_t iw = col0 + kw * p.dilation_w;
            const float x = line[iw];
            if (best_h < 0 || x > best) {
              best = x;
              best_h = ih;
              best_w = iw;
            }
          }
        }
        out[ow] = best;
        if (best_h < 0) {
          out_indices[ow] = -1;
        } else {
          const int64_t offset =
              column_major_ ? best_w * p.in_h + best_h : best_h * p.in_w + best_w;
          out_indices[ow] = static_cast<int32_t>(plane * in_plane + offset);
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
