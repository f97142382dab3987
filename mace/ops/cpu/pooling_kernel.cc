#include "mace/ops/cpu/pooling_kernel.h"

#include <algorithm>
#include <limits>

#include "mace/runtimes/cpu/scratch_buffer.h"

namespace mace {
namespace ops {
namespace {

// The widest vector a band kernel computes (see PoolingBand).
constexpr int64_t kWidestVector = 8;

// Where output `index` of one axis lies: the first tap inside the input,
// the taps inside it, and the taps inside it or its declared padding.
struct AxisWindow {
  int64_t first = 0, inside = 0, declared = 0;
};

AxisWindow Locate(int64_t index, int64_t stride, int64_t kernel, int64_t size, int64_t pad_begin,
                  int64_t pad_end) {
  const int64_t start = index * stride - pad_begin;
  AxisWindow window;
  window.first = std::max<int64_t>(start, 0);
  window.inside = std::max<int64_t>(std::min(start + kernel, size) - window.first, 0);
  window.declared =
      std::max<int64_t>(std::min(start + kernel, size + pad_end) - std::max(start, -pad_begin), 0);
  return window;
}

bool OneOf(int64_t value, int64_t a, int64_t b) { return value == a || value == b; }

}  // namespace

bool PoolingKernel::IsGlobal(const ref::PoolingParams& p) {
  return p.out_h == 1 && p.out_w == 1 && p.kernel_h == p.in_h && p.kernel_w == p.in_w &&
         p.dilation_h == 1 && p.dilation_w == 1 && p.pad_top == 0 && p.pad_left == 0 &&
         p.pad_bottom == 0 && p.pad_right == 0;
}

bool PoolingKernel::Supports(const KernelTable& table, const ref::PoolingParams& p) {
  if (table.pooling == nullptr || table.plane_sum == nullptr || table.plane_max == nullptr) {
    return false;
  }
  if (IsGlobal(p)) return true;
  return OneOf(p.kernel_h, 2, 3) && OneOf(p.kernel_w, 2, 3) && OneOf(p.stride_h, 1, 2) &&
         OneOf(p.stride_w, 1, 2) && p.dilation_h == 1 && p.dilation_w == 1 &&
         std::max({p.pad_top, p.pad_left, p.pad_bottom, p.pad_right}) <= kMaxPoolingPad;
}

PoolingKernel::PoolingKernel(const KernelTable& table, const ref::PoolingParams& params)
    : params_(params) {
  const ref::PoolingParams& p = params_;
  global_ = IsGlobal(p);
  average_ = p.type == ref::PoolingType::AVG;
  if (global_) {
    plane_kernel_ = average_ ? table.plane_sum : table.plane_max;
    return;
  }
  band_kernel_ = table.pooling;
  // What counts toward an average's divisor on each axis; the divisor of
  // output (oh, ow) is their product.
  const auto counted = [&](const AxisWindow& window) {
    return p.count_include_pad ? window.declared : window.inside;
  };
  std::vector<int64_t> column_counts(p.out_w);
  column_begin_ = p.out_w;
  column_end_ = 0;
  for (int64_t ow = 0; ow < p.out_w; ++ow) {
    const AxisWindow window = Locate(ow, p.stride_w, p.kernel_w, p.in_w, p.pad_left, p.pad_right);
    column_counts[ow] = counted(window);
    if (window.inside > 0) {
      column_begin_ = std::min(column_begin_, ow);
      column_end_ = ow + 1;
    }
  }
  if (average_) {
    scales_.assign((p.kernel_h + 1) * p.out_w, 0.f);
    for (int64_t rows = 1; rows <= p.kernel_h; ++rows) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const int64_t divisor = rows * column_counts[ow];
        if (divisor > 0) scales_[rows * p.out_w + ow] = static_cast<float>(1.0 / divisor);
      }
    }
  }
  windows_.resize(p.out_h);
  for (int64_t oh = 0; oh < p.out_h; ++oh) {
    const AxisWindow window = Locate(oh, p.stride_h, p.kernel_h, p.in_h, p.pad_top, p.pad_bottom);
    windows_[oh].first_row = window.first;
    windows_[oh].row_count = window.inside;
    if (average_) windows_[oh].scale = scales_.data() + counted(window) * p.out_w;
  }
  // The line holds the padded input row and what whole output vectors read.
  // Whole thread regions: see kThreadRegionBytes, which this line, written
  // every row, showed.
  line_floats_ = ThreadRegionFloats(
      std::max(p.pad_left + p.in_w, std::max(p.out_w, kWidestVector) * p.stride_w + p.kernel_w));
}

int64_t PoolingKernel::ScratchBytes(int threads) const {
  return threads * line_floats_ * static_cast<int64_t>(sizeof(float));
}

void PoolingKernel::ZeroEmptyColumns(float* out, int64_t rows) const {
  const int64_t out_w = params_.out_w;
  for (int64_t r = 0; r < rows; ++r, out += out_w) {
    std::fill(out, out + std::min(column_begin_, out_w), 0.f);
    std::fill(out + std::max(column_end_, column_begin_), out + out_w, 0.f);
  }
}

void PoolingKernel::RunGlobal(const float* input, float* output, ThreadPool* pool) const {
  const int64_t plane_size = params_.in_h * params_.in_w;
  const float divisor = static_cast<float>(plane_size);
  ParallelFor(pool, params_.batch * params_.channels, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const float value = plane_kernel_(input + plane * plane_size, plane_size);
      output[plane] = average_ ? value / divisor : value;
    }
  });
}

void PoolingKernel::Run(const float* input, float* output, ThreadPool* pool, float* scratch) const {
  if (global_) return RunGlobal(input, output, pool);
  const ref::PoolingParams& p = params_;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const bool zero_columns = !average_ && (column_begin_ > 0 || column_end_ < p.out_w);
  const float identity = average_ ? 0.f : -std::numeric_limits<float>::infinity();
  ParallelFor(pool, p.batch * p.channels * p.out_h, [&](int64_t begin, int64_t end, int chunk) {
    PoolingBand band;
    band.in_w = p.in_w;
    band.line = scratch + chunk * line_floats_;
    band.pad_left = p.pad_left;
    band.kernel_w = static_cast<int32_t>(p.kernel_w);
    band.stride_w = static_cast<int32_t>(p.stride_w);
    band.average = average_ ? 1 : 0;
    band.out_w = p.out_w;
    // Kernels write only the input columns of the line, so its padding
    // keeps the identity for every row this thread computes.
    std::fill(band.line, band.line + line_floats_, identity);
    int64_t plane = begin / p.out_h, row = begin % p.out_h;
    for (int64_t item = begin; item < end; ++plane, row = 0) {
      band.rows = std::min(p.out_h - row, end - item);
      band.in = input + plane * in_plane;
      band.windows = windows_.data() + row;
      band.out = output + plane * out_plane + row * p.out_w;
      band_kernel_(band);
      if (zero_columns) ZeroEmptyColumns(band.out, band.rows);
      item += band.rows;
    }
  });
}

}  // namespace ops
}  // namespace mace
