#include "mace/ops/cpu/pooling_uint8_fast.h"

#include <algorithm>
#include <vector>

#include "mace/ops/cpu/pooling_uint8_plane_sum.h"

namespace mace {
namespace ops {
namespace {

// The taps of one output along one axis: `valid` inside the input (listed
// in `index`), `padded` inside the input or its declared padding.
struct Taps {
  int64_t valid = 0, padded = 0;
};

Taps AxisTaps(int64_t out, int64_t stride, int64_t pad_before, int64_t pad_after,
              int64_t dilation, int64_t kernel, int64_t size, int64_t* index) {
  Taps taps;
  for (int64_t k = 0; k < kernel; ++k) {
    const int64_t i = out * stride - pad_before + k * dilation;
    if (i >= -pad_before && i < size + pad_after) ++taps.padded;
    if (i >= 0 && i < size) index[taps.valid++] = i;
  }
  return taps;
}

void PoolPlane(const ref::PoolingParams& p, int32_t zero_point, const uint8_t* in, uint8_t* out,
               int32_t* reduced, int64_t* rows, int64_t* cols) {
  const bool max = p.type == ref::PoolingType::MAX;
  for (int64_t oh = 0; oh < p.out_h; ++oh) {
    uint8_t* out_row = out + oh * p.out_w;
    const Taps row_taps =
        AxisTaps(oh, p.stride_h, p.pad_top, p.pad_bottom, p.dilation_h, p.kernel_h, p.in_h, rows);
    if (row_taps.valid == 0) {
      std::fill(out_row, out_row + p.out_w, static_cast<uint8_t>(zero_point));
      continue;
    }
    // Column by column over the window's valid rows.
    const uint8_t* first = in + rows[0] * p.in_w;
    for (int64_t iw = 0; iw < p.in_w; ++iw) reduced[iw] = first[iw];
    for (int64_t r = 1; r < row_taps.valid; ++r) {
      const uint8_t* row = in + rows[r] * p.in_w;
      if (max) {
        for (int64_t iw = 0; iw < p.in_w; ++iw) reduced[iw] = std::max<int32_t>(reduced[iw], row[iw]);
      } else {
        for (int64_t iw = 0; iw < p.in_w; ++iw) reduced[iw] += row[iw];
      }
    }
    for (int64_t ow = 0; ow < p.out_w; ++ow) {
      const Taps col_taps = AxisTaps(ow, p.stride_w, p.pad_left, p.pad_right, p.dilation_w,
                                     p.kernel_w, p.in_w, cols);
      if (col_taps.valid == 0) {
        out_row[ow] = static_cast<uint8_t>(zero_point);
        continue;
      }
      if (max) {
        int32_t m = reduced[cols[0]];
        for (int64_t c = 1; c < col_taps.valid; ++c) m = std::max(m, reduced[cols[c]]);
        out_row[ow] = static_cast<uint8_t>(m);
        continue;
      }
      int64_t sum = 0;
      for (int64_t c = 0; c < col_taps.valid; ++c) sum += reduced[cols[c]];
      const int64_t valid = row_taps.valid * col_taps.valid;
      const int64_t divisor = p.count_include_pad ? row_taps.padded * col_taps.padded : valid;
      sum += (divisor - valid) * zero_point;
      out_row[ow] = static_cast<uint8_t>((sum + divisor / 2) / divisor);
    }
  }
}

// Whether a max pooling runs on the table's row kernel: dilation 1 across,
// stride 1 or 2, and every output column's window holding an input column
// (windows are monotonic, so the first and last decide).
bool RowKernelFits(const ref::PoolingParams& p) {
  return p.type == ref::PoolingType::MAX && p.dilation_w == 1 &&
         (p.stride_w == 1 || p.stride_w == 2) && p.kernel_w - 1 - p.pad_left >= 0 &&
         (p.out_w - 1) * p.stride_w - p.pad_left < p.in_w;
}

// The valid input rows of each output row's window, the same for every
// plane: row oh has valid[oh] of them, listed from index[oh * kernel_h].
struct RowWindows {
  std::vector<int64_t> valid, index;
};

RowWindows AllRowWindows(const ref::PoolingParams& p) {
  RowWindows windows;
  windows.valid.resize(p.out_h);
  windows.index.resize(p.out_h * p.kernel_h);
  for (int64_t oh = 0; oh < p.out_h; ++oh) {
    windows.valid[oh] = AxisTaps(oh, p.stride_h, p.pad_top, p.pad_bottom, p.dilation_h,
                                 p.kernel_h, p.in_h, windows.index.data() + oh * p.kernel_h)
                            .valid;
  }
  return windows;
}

// Max pooling of one plane through the row kernel. `line` holds zeros in its
// padding (before pad_left and past the input columns) and is
// LineSize(p) bytes long. The output rows whose windows hold all kernel_h
// input rows (a run, as windows move monotonically) go to the kernel in one
// call, each a step of stride_h input rows after the one before.
void MaxPlaneRows(const ref::PoolingParams& p, int32_t zero_point, MaxPoolUint8RowKernel kernel,
                  const RowWindows& windows, const uint8_t* in, uint8_t* out, uint8_t* line,
                  const uint8_t** row_data) {
  MaxPoolUint8Row row;
  row.rows = row_data;
  row.width = p.in_w;
  row.cells = line + p.pad_left;
  row.line = line;
  row.kernel = p.kernel_w;
  row.stride = p.stride_w;
  row.count = p.out_w;
  row.output_step = p.out_w;
  row.input_step = p.stride_h * p.in_w;
  const int64_t out_plane = p.out_h * p.out_w;
  for (int64_t oh = 0; oh < p.out_h;) {
    row.out = out + oh * p.out_w;
    row.out_room = out_plane - oh * p.out_w;
    const int64_t valid = windows.valid[oh];
    if (valid == 0) {
      std::fill(row.out, row.out + p.out_w, static_cast<uint8_t>(zero_point));
      ++oh;
      continue;
    }
    int64_t run = 1;
    if (valid == p.kernel_h) {
      while (oh + run < p.out_h && windows.valid[oh + run] == p.kernel_h) ++run;
    }
    const int64_t* rows = windows.index.data() + oh * p.kernel_h;
    for (int64_t r = 0; r < valid; ++r) row_data[r] = in + rows[r] * p.in_w;
    row.row_count = valid;
    row.out_rows = run;
    kernel(row);
    oh += run;
  }
}

// A window over the whole plane and nothing else: every divisor is the
// plane's size.
bool GlobalAverage(const ref::PoolingParams& p) {
  return p.type == ref::PoolingType::AVG && p.out_h == 1 && p.out_w == 1 &&
         p.kernel_h == p.in_h && p.kernel_w == p.in_w && p.dilation_h == 1 &&
         p.dilation_w == 1 && p.pad_top == 0 && p.pad_left == 0 && p.pad_bottom == 0 &&
         p.pad_right == 0;
}

int64_t LineSize(const ref::PoolingParams& p) {
  return std::max(p.pad_left + p.in_w, p.stride_w * (p.out_w - 1) + p.kernel_w) +
         kMaxPoolUint8Slack;
}

}  // namespace

void PoolingUint8Fast(const ref::PoolingParams& p, int32_t zero_point, const uint8_t* input,
                      uint8_t* output, ThreadPool* pool, MaxPoolUint8RowKernel max_row) {
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  if (GlobalAverage(p)) {
    const int64_t divisor = in_plane;
    ParallelFor(pool, p.batch * p.channels, [&](int64_t begin, int64_t end) {
      for (int64_t plane = begin; plane < end; ++plane) {
        const int64_t sum = Uint8PlaneSum(input + plane * in_plane, in_plane);
        output[plane] = static_cast<uint8_t>((sum + divisor / 2) / divisor);
      }
    });
    return;
  }
  if (max_row != nullptr && RowKernelFits(p)) {
    const RowWindows windows = AllRowWindows(p);
    ParallelFor(pool, p.batch * p.channels, [&](int64_t begin, int64_t end) {
      std::vector<uint8_t> line(LineSize(p), 0);
      std::vector<const uint8_t*> row_data(p.kernel_h);
      for (int64_t plane = begin; plane < end; ++plane) {
        MaxPlaneRows(p, zero_point, max_row, windows, input + plane * in_plane,
                     output + plane * out_plane, line.data(), row_data.data());
      }
    });
    return;
  }
  ParallelFor(pool, p.batch * p.channels, [&](int64_t begin, int64_t end) {
    std::vector<int32_t> reduced(p.in_w);
    std::vector<int64_t> rows(p.kernel_h), cols(p.kernel_w);
    for (int64_t plane = begin; plane < end; ++plane) {
      PoolPlane(p, zero_point, input + plane * in_plane, output + plane * out_plane,
                reduced.data(), rows.data(), cols.data());
    }
  });
}

}  // namespace ops
}  // namespace mace
