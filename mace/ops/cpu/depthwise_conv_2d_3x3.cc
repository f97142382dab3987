#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"

#include <algorithm>
#include <cstring>

#include "mace/ops/cpu/fused_activation.h"
#include "mace/ops/cpu/linked_families.h"
#include "mace/runtimes/cpu/scratch_buffer.h"

namespace mace {
namespace ops {
namespace {

// One thread's padded band: it stays in L1 while the kernel reads it.
constexpr int64_t kBandBytes = 16 << 10;
constexpr int64_t kCacheLineFloats = 16;
// The widest vector a band kernel computes (see DepthwiseBand).
constexpr int64_t kWidestVector = 16;
constexpr int64_t kFloatBytes = sizeof(float);
// Half planes at most this wide run 8 channels at a time (RunPackedGroups).
constexpr int64_t kPackedMaxWidth = 28;
// And with at most this many input and padded pixels: a thread's scratch
// holds the padded pixels and the outputs of 8 channels (16 bytes a pixel).
constexpr int64_t kPackedMaxPixels = 8192;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
}  // namespace

bool DepthwiseConv3x3::Supports(const KernelTable& table, const ref::DepthwiseConv2dParams& p) {
  return table.depthwise3x3_s1 != nullptr && p.kernel_h == 3 && p.kernel_w == 3 &&
         p.dilation_h == 1 && p.dilation_w == 1 && (p.stride_w == 1 || p.stride_w == 2) &&
         (p.stride_h == 1 || p.stride_h == 2);
}

DepthwiseConv3x3::DepthwiseConv3x3(const KernelTable& table,
                                   const ref::DepthwiseConv2dParams& params)
    : params_(params) {
  band_kernel_ = params.stride_w == 1 ? table.depthwise3x3_s1 : table.depthwise3x3_s2;
  fused_activation_ = FuseActivation(params.activation, &epilogue_);
  const int64_t sh = params.stride_h, sw = params.stride_w;
  if (kLinksFp16Kernels && table.fp16_depthwise3x3_s1 != nullptr) {
    band_kernel_ = sw == 1 ? table.fp16_depthwise3x3_s1 : table.fp16_depthwise3x3_s2;
    fp16_from_float_ = table.fp16_from_float;
    copy_columns_ = std::min(params.in_w, (params.out_w - 1) * sw + 3 - params.pad_left);
    // Half rows: whole vectors of 8 outputs read 8 * ceil(out_w / 8) * sw + 2.
    pitch_ = RoundUp(RoundUp(params.out_w, 8) * sw + 2, 2 * kCacheLineFloats);
    const int64_t budget_rows = std::max(kBandBytes / (pitch_ * 2), sh + 3);
    band_rows_ = std::min(params.out_h, (budget_rows - 3) / sh + 1);
    if (band_rows_ < params.out_h && band_rows_ % 2 == 1) --band_rows_;
    band_floats_ = ThreadRegionFloats((((band_rows_ - 1) * sh + 3) * pitch_ + 1) / 2);
    // Small planes (MobileNets' 28x28 to 7x7) as groups of 8 channels: a
    // plane's rows are too short for vectors along them, and each plane's
    // band, its padding and its calls cost more than its arithmetic.
    const int64_t in_pixels = params.in_h * params.in_w, out_pixels = params.out_h * params.out_w;
    const int64_t padded_pixels = ((params.out_h - 1) * sh + 3) * ((params.out_w - 1) * sw + 3);
    if (table.fp16_depthwise3x3_packed != nullptr && params.multiplier == 1 &&
        params.out_w <= kPackedMaxWidth && in_pixels >= 8 && out_pixels >= 8 &&
        in_pixels <= kPackedMaxPixels && padded_pixels <= kPackedMaxPixels && fused_activation_) {
      packed_kernel_ = table.fp16_depthwise3x3_packed;
      packed_w_ = (params.out_w - 1) * sw + 3;
      const int64_t padded_h = (params.out_h - 1) * sh + 3;
      packed_pixels_ = padded_h * packed_w_;
      packed_offsets_.resize(in_pixels);
      for (int64_t ih = 0; ih < params.in_h; ++ih) {
        for (int64_t iw = 0; iw < params.in_w; ++iw) {
          const int64_t y = ih + params.pad_top, x = iw + params.pad_left;
          const bool read = y < padded_h && x < packed_w_;
          // Bytes: 8 halves a pixel.
          packed_offsets_[ih * params.in_w + iw] =
              static_cast<int32_t>((read ? y * packed_w_ + x : packed_pixels_) * 16);
        }
      }
      // The padded pixels with the spare one, then the staged outputs: 8
      // halves each.
      packed_floats_ = ThreadRegionFloats((packed_pixels_ + 1 + out_pixels) * 8 / 2);
    }
    return;
  }
  in_place_ = TakesPlanesInPlace();
  // Outputs read padded columns [0, (out_w - 1) * sw + 3); input column iw
  // is padded column iw + pad_left, and columns past the last read one need
  // not be copied.
  copy_columns_ = std::min(params.in_w, (params.out_w - 1) * sw + 3 - params.pad_left);
  pitch_ = RoundUp(std::max(params.out_w, kWidestVector) * sw + 2, kCacheLineFloats);
  // Output rows r .. r + n - 1 read padded rows r * sh .. (r + n - 1) * sh + 2.
  const int64_t budget_rows = std::max(kBandBytes / (pitch_ * kFloatBytes), sh + 3);
  band_rows_ = std::min(params.out_h, (budget_rows - 3) / sh + 1);
  // Kernels compute output rows in pairs; the port's may want more.
  band_rows_ = PortBandRows(band_rows_);
  if (band_rows_ < params.out_h && band_rows_ % 2 == 1) --band_rows_;
  band_floats_ = ThreadRegionFloats(((band_rows_ - 1) * sh + 3) * pitch_);
}

int64_t DepthwiseConv3x3::ScratchBytes(int threads) const {
  return threads * std::max(band_floats_, packed_floats_) * kFloatBytes;
}

void DepthwiseConv3x3::FillBand(const void* input_data, int64_t first_row, int64_t rows,
                                bool half_input, bool padding_rows_are_zero,
                                float* padded) const {
  const ref::DepthwiseConv2dParams& p = params_;
  // Band rows [0, top) and [bottom, rows) are padding, the rest input rows.
  const int64_t top = std::clamp<int64_t>(p.pad_top - first_row, 0, rows);
  const int64_t bottom = std::clamp<int64_t>(p.pad_top + p.in_h - first_row, top, rows);
  if (fp16_from_float_ != nullptr) {
    uint16_t* half = reinterpret_cast<uint16_t*>(padded);
    if (!padding_rows_are_zero) {
      std::fill(half, half + top * pitch_, uint16_t{0});  // zero bits: a half zero
      std::fill(half + bottom * pitch_, half + rows * pitch_, uint16_t{0});
    }
    if (copy_columns_ <= 0) return;
    const int64_t offset = (first_row + top - p.pad_top) * p.in_w;
    uint16_t* dst = half + top * pitch_ + p.pad_left;
    if (half_input) {
      // Already halves: a copy.
      CopyHalfBandRows(static_cast<const uint16_t*>(input_data) + offset, dst, bottom - top);
      return;
    }
    const float* src = static_cast<const float*>(input_data) + offset;
    for (int64_t i = top; i < bottom; ++i, src += p.in_w, dst += pitch_) {
      fp16_from_float_(src, copy_columns_, dst);
    }
    return;
  }
  const float* input = static_cast<const float*>(input_data);
  if (!padding_rows_are_zero) {
    std::fill(padded, padded + top * pitch_, 0.f);
    std::fill(padded + bottom * pitch_, padded + rows * pitch_, 0.f);
  }
  if (copy_columns_ <= 0) return;
  CopyBandRows(input + (first_row + top - p.pad_top) * p.in_w, padded + top * pitch_ + p.pad_left,
               bottom - top);
}

void DepthwiseConv3x3::RunBand(const Plane& plane, int64_t row, int64_t rows, bool half,
                               float* padded, BandState* state) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t first_row = row * p.stride_h;
  const int64_t padded_rows = (rows - 1) * p.stride_h + 3;
  // Padding rows sit at the same band rows whenever the band starts at the
  // same padded row, and the kernel never writes the band.
  const bool same_rows = state->first_row == first_row && state->rows >= padded_rows;
  if (!same_rows || state->input != plane.input) {
    FillBand(plane.input, first_row, padded_rows, half, same_rows, padded);
    state->input = plane.input;
    state->first_row = first_row;
    state->rows = padded_rows;
  }
  DepthwiseBand band;
  band.in = padded;
  band.in_pitch = pitch_;
  band.stride_h = p.stride_h;
  band.taps = plane.taps;
  band.bias = plane.bias;
  const int64_t value_bytes = half ? sizeof(uint16_t) : sizeof(float);
  band.out = reinterpret_cast<float*>(static_cast<char*>(plane.output) +
                                      row * p.out_w * value_bytes);
  band.out_w = p.out_w;
  band.rows = rows;
  band.epilogue = epilogue_;
  band.out_half = half ? 1 : 0;
  band_kernel_(band);
  // Half outputs come only with a fused activation (SupportsHalf).
  if (!fused_activation_) p.activation.ApplyInPlace(band.out, rows * p.out_w);
}

void DepthwiseConv3x3::Run(const float* input, const float* filter, const float* bias,
                           float* output, ThreadPool* pool, float* scratch) const {
  if (in_place_) {
    RunInPlace(input, filter, bias, output, pool);
    return;
  }
  // A plane a band: RunPlanes and RunBand spent some 260 instructions a
  // plane on 64-bit index arithmetic and band bookkeeping, as much as the
  // kernel itself on a 7x7 plane. The work is split over planes, so only
  // with enough of them to keep every thread busy. Not with the fp16
  // kernels, whose band holds halves.
  const ref::DepthwiseConv2dParams& p = params_;
  if (p.multiplier == 1 && band_rows_ >= p.out_h && fused_activation_ &&
      fp16_from_float_ == nullptr && p.batch * p.channels >= 4 * NumThreads(pool)) {
    RunWholePlanes(input, filter, bias, output, pool, scratch);
    return;
  }
  RunPlanes(input, filter, bias, output, false, pool, scratch);
}

void DepthwiseConv3x3::RunHalf(const uint16_t* input, const float* filter, const float* bias,
                               uint16_t* output, ThreadPool* pool, float* scratch) const {
  if constexpr (!kLinksFp16Kernels) return;
  if (packed_kernel_ != nullptr) {
    RunPackedGroups(input, filter, bias, output, pool, scratch);
    return;
  }
  RunPlanes(input, filter, bias, output, true, pool, scratch);
}

void DepthwiseConv3x3::RunPackedGroups(const uint16_t* input, const float* filter,
                                       const float* bias, uint16_t* output, ThreadPool* pool,
                                       float* scratch) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t groups = (p.channels + 7) / 8;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  ParallelFor(pool, p.batch * groups, [&](int64_t begin, int64_t end, int chunk) {
    uint16_t* padded = reinterpret_cast<uint16_t*>(scratch + chunk * packed_floats_);
    // Only the input pixels are written: the padding stays zero.
    std::fill(padded, padded + (packed_pixels_ + 1) * 8, uint16_t{0});
    DepthwisePackedGroup group;
    group.in_plane = in_plane;
    group.in_pixels = in_plane;
    group.in_offsets = packed_offsets_.data();
    group.padded = padded;
    group.padded_w = packed_w_;
    group.stride_h = static_cast<int32_t>(p.stride_h);
    group.stride_w = static_cast<int32_t>(p.stride_w);
    group.out_plane = out_plane;
    group.out_h = p.out_h;
    group.out_w = p.out_w;
    group.staging = padded + (packed_pixels_ + 1) * 8;
    group.epilogue = epilogue_;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / groups, c0 = item % groups * 8;
      group.channels = static_cast<int32_t>(std::min<int64_t>(8, p.channels - c0));
      group.in = input + (n * p.channels + c0) * in_plane;
      group.taps = filter + c0 * 9;
      group.bias = bias != nullptr ? bias + c0 : nullptr;
      group.out = output + (n * p.channels + c0) * out_plane;
      packed_kernel_(group);
    }
  });
}

void DepthwiseConv3x3::RunPlanes(const void* input_data, const float* filter, const float* bias,
                                 void* output_data, bool half, ThreadPool* pool,
                                 float* scratch) const {
  const char* input = static_cast<const char*>(input_data);
  char* output = static_cast<char*>(output_data);
  const int64_t value_bytes = half ? sizeof(uint16_t) : sizeof(float);
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t out_channels = p.channels * p.multiplier;
  const int64_t in_plane = p.in_h * p.in_w * value_bytes;
  const int64_t out_plane = p.out_h * p.out_w * value_bytes;
  ParallelFor(pool, p.batch * out_channels * p.out_h, [&](int64_t begin, int64_t end, int chunk) {
    float* padded = scratch + chunk * band_floats_;
    // Columns outside the copied ones are never written again, so they stay
    // zero for every band this thread fills.
    std::fill(padded, padded + band_floats_, 0.f);
    BandState state;
    // Output plane (n, c * multiplier + m), counted without a division per
    // plane: planes of 7x7 cost a few hundred cycles.
    const int64_t first_plane = begin / p.out_h;
    int64_t row = begin % p.out_h;
    int64_t n = first_plane / out_channels, c = first_plane % out_channels / p.multiplier,
            m = first_plane % out_channels % p.multiplier;
    Plane plane;
    char* plane_output = output + first_plane * out_plane;
    for (int64_t item = begin; item < end; plane_output += out_plane, row = 0) {
      const int64_t oc = c * p.multiplier + m;
      plane.output = plane_output;
      plane.input = input + (n * p.channels + c) * in_plane;
      plane.taps = filter + (m * p.channels + c) * 9;
      plane.bias = bias != nullptr ? bias[oc] : 0.f;
      const int64_t last = std::min(p.out_h, row + end - item);
      for (int64_t r = row; r < last; r += band_rows_) {
        RunBand(plane, r, std::min(band_rows_, last - r), half, padded, &state);
      }
      item += last - row;
      if (++m == p.multiplier) {
        m = 0;
        if (++c == p.channels) {
          c = 0;
          ++n;
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
