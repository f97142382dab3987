#include "mace/ops/cpu/depthwise_conv_2d_uint8_fast.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mace/ops/common/quantize.h"
#include "mace/ops/cpu/depthwise_conv_2d_uint8_rows.h"
#include "mace/ops/cpu/quantized_output.h"


namespace mace {
namespace ops {
namespace {

// Stride-1 layers with outputs at most this wide run flat (see
// flat_w_): MobileNet's 7 and 14.
constexpr int64_t kFlatMaxWidth = 16;

// Output planes of at most this many values run on the planar kernel
// where the table has one: at 112 x 112 it measured 8 % slower than the
// blocked kernel, at 56 x 56 equal, and faster from 28 x 28 down.
constexpr int64_t kPlanarMaxOutputs = 1024;


int64_t PaddedCount(int64_t count) {
  return (count + kDepthwiseUint8Lanes - 1) / kDepthwiseUint8Lanes * kDepthwiseUint8Lanes;
}

}  // namespace

std::unique_ptr<DepthwiseUint8Fast> DepthwiseUint8Fast::Create(
    const KernelTable& table, const ref::DepthwiseConv2dParams& params,
    const ref::quantized::ConvQuantization& quant, const void* filter, bool int8_filter) {
  if (params.kernel_h != 3 || params.kernel_w != 3 || params.dilation_h != 1 ||
      params.dilation_w != 1 || params.stride_h < 1) {
    return nullptr;
  }
  DepthwiseUint8RowKernel kernel = params.stride_w == 1   ? table.depthwise3x3_uint8_s1
                                   : params.stride_w == 2 ? table.depthwise3x3_uint8_s2
                                                          : nullptr;
  if (kernel == nullptr) return nullptr;
  std::unique_ptr<DepthwiseUint8Fast> fast(new DepthwiseUint8Fast());
  fast->row_kernel_ = kernel;
  fast->requant_kernel_ = params.stride_w == 1 ? table.depthwise3x3_uint8_requant_s1
                                               : table.depthwise3x3_uint8_requant_s2;
  // A stride-1 row whose padded width leaves a last step of 8 outputs
  // (widths 7 and 56 in MobileNet v2) requantizes that step in a
  // half-empty AVX-512 register; the two passes measured faster there
  // (docs/design/quantization.md), so those layers keep them.
  if (params.stride_w == 1 && (params.out_w + 7) / 8 % 2 == 1) fast->requant_kernel_ = nullptr;
  fast->requantize_row_ = table.requantize_row;
  fast->p_ = params;
  fast->quant_ = quant;
  const int64_t lanes = kDepthwiseUint8Lanes;
  fast->padded_count_ = (params.out_w + lanes - 1) / lanes * lanes;
  fast->plane_h_ = (params.out_h - 1) * params.stride_h + 3;
  // The row kernel reads up to stride * padded_count + 2.
  fast->plane_w_ = params.stride_w * fast->padded_count_ + 3;
  if (params.stride_h == 1 && params.stride_w == 1 && params.out_w <= kFlatMaxWidth &&
      table.depthwise3x3_uint8_requant_s1 != nullptr) {
    fast->flat_kernel_ = table.depthwise3x3_uint8_requant_s1;
    fast->flat_w_ = params.out_w + 2;
    fast->flat_h_ = params.out_h + 2;
    fast->flat_count_ = (params.out_h - 1) * fast->flat_w_ + params.out_w;
  }
  const int64_t out_channels = params.channels * params.multiplier;
  fast->taps_.resize(out_channels * 9);
  for (int64_t c = 0; c < params.channels; ++c) {
    for (int64_t m = 0; m < params.multiplier; ++m) {
      const int64_t source = (m * params.channels + c) * 9;
      int16_t* taps = fast->taps_.data() + (c * params.multiplier + m) * 9;
      for (int t = 0; t < 9; ++t) {
        const int32_t w = int8_filter ? static_cast<const int8_t*>(filter)[source + t]
                                      : static_cast<const uint8_t*>(filter)[source + t];
        taps[t] = static_cast<int16_t>(w - quant.filter_zero_point);
      }
    }
  }
  const bool blockable = params.multiplier == 1 && params.stride_h <= 2 &&
                         params.stride_w <= 2 &&
                         std::all_of(fast->taps_.begin(), fast->taps_.end(),
                                     [](int16_t t) { return t >= -128 && t <= 127; });
  if (blockable) {
    fast->tap_sums_.assign(params.channels, 0);
    for (int64_t c = 0; c < params.channels; ++c) {
      for (int t = 0; t < 9; ++t) fast->tap_sums_[c] += fast->taps_[c * 9 + t];
    }
  }
  if (blockable && table.depthwise3x3_uint8_planar != nullptr &&
      params.out_h * params.out_w <= kPlanarMaxOutputs && (fast->MakePlanarSteps(64) || fast->MakePlanarSteps(128))) {
    fast->planar_kernel_ = table.depthwise3x3_uint8_planar;
    fast->planar_quads_.assign(params.channels * 3, 0);
    fast->planar_scales_.resize(params.channels);
    for (int64_t c = 0; c < params.channels; ++c) {
      for (int i = 0; i < 3; ++i) {
        uint32_t quad = 0;
        for (int j = 0; j < 3; ++j) {
          quad |= uint32_t{static_cast<uint8_t>(fast->taps_[c * 9 + 3 * i + j])} << (8 * j);
        }
        fast->planar_quads_[c * 3 + i] = static_cast<int32_t>(quad);
      }
      const QuantizedMultiplier& m = quant.multiplier(c);
      DepthwiseUint8PlanarScale& scale = fast->planar_scales_[c];
      scale.multiplier2 = int64_t{static_cast<uint32_t>(m.multiplier)} * 2;
      // Used where the multiplier is below 1 (RunBlocked checks), so the
      // shift is at least 31; shifts past 62 (scales under 2^-32) leave
      // the layer to the blocked kernel or the rows.
      const int shift = m.right_shift;
      if (shift < 31 || shift > 62) {
        fast->planar_kernel_ = nullptr;
        break;
      }
      scale.half = int64_t{1} << shift;
      scale.even_shift = shift + 1;
      scale.odd_shift = shift - 31;
    }
  }
  if (fast->planar_kernel_ == nullptr) {
    fast->planar_steps_.clear();
    fast->planar_patterns_.clear();
    fast->planar_quads_.clear();
    fast->planar_scales_.clear();
  }
  if (blockable && table.depthwise3x3_uint8_block != nullptr) {
    const int64_t block = kDepthwiseUint8Block;
    const int64_t blocks = (params.channels + block - 1) / block;
    fast->block_kernel_ = table.depthwise3x3_uint8_block;
    // The kernel's 64-byte load at the last output reads one position past
    // its window.
    fast->blocked_w_ = (params.out_w - 1) * params.stride_w + 4;
    fast->block_taps_.assign(blocks * 3 * block * 4, 0);
    fast->block_multipliers_.assign(blocks * block, 0);
    fast->block_shifts_.assign(blocks * block, 31);
    for (int64_t c = 0; c < params.channels; ++c) {
      int8_t* quads = fast->block_taps_.data() + (c / block) * 3 * block * 4;
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          const int16_t t = fast->taps_[c * 9 + 3 * i + j];
          quads[(i * block + c % block) * 4 + j] = static_cast<int8_t>(t);
        }
      }
      fast->block_multipliers_[c] = quant.multiplier(c).multiplier;
      fast->block_shifts_[c] = quant.multiplier(c).right_shift;
    }
  }
  return fast;
}

bool DepthwiseUint8Fast::MakePlanarSteps(int64_t window) {
  const ref::DepthwiseConv2dParams& p = p_;
  const int64_t count = p.out_h * p.out_w, in_plane = p.in_h * p.in_w;
  const int64_t vectors = (count + 15) / 16;
  planar_steps_.assign(vectors * 3, DepthwiseUint8PlanarStep());
  planar_patterns_.clear();
  // Steps of the same shape (a stride-1 plane repeats every 16 / gcd(16,
  // out_w) vectors away from its first and last rows) share a pattern.
  std::map<std::string, size_t> pattern_ids;
  std::vector<size_t> step_patterns(vectors * 3);
  for (int64_t v = 0; v < vectors; ++v) {
    for (int i = 0; i < 3; ++i) {
      // Flat input index of byte b of the step (-1 outside the input).
      int64_t flat[64];
      int64_t low = -1, high = -1;
      for (int b = 0; b < 64; ++b) {
        const int64_t q = v * 16 + b / 4, t = b % 4;
        flat[b] = -1;
        if (q >= count || t == 3) continue;
        const int64_t iy = q / p.out_w * p.stride_h + i - p.pad_top;
        const int64_t ix = q % p.out_w * p.stride_w + t - p.pad_left;
        if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
        flat[b] = iy * p.in_w + ix;
        if (low < 0 || flat[b] < low) low = flat[b];
        high = std::max(high, flat[b]);
      }
      DepthwiseUint8PlanarStep& step = planar_steps_[v * 3 + i];
      step.base = 0;
      if (low >= 0 && (in_plane > window || high >= window)) {
        if (high - low >= window) return false;
        step.base = std::min(low, in_plane - window);
      }
      DepthwiseUint8PlanarPattern pattern;
      for (int b = 0; b < 64; ++b) {
        pattern.index[b] = static_cast<uint8_t>(quant_.input_zero_point);
        if (flat[b] < 0) continue;
        pattern.index[b] = static_cast<uint8_t>(flat[b] - step.base);
        pattern.inside |= uint64_t{1} << b;
      }
      std::string key(reinterpret_cast<const char*>(pattern.index), 64);
      key.append(reinterpret_cast<const char*>(&pattern.inside), 8);
      auto found = pattern_ids.emplace(key, planar_patterns_.size());
      if (found.second) planar_patterns_.push_back(pattern);
      step_patterns[v * 3 + i] = found.first->second;
    }
  }
  // Pointers only now: the patterns no longer move.
  for (size_t s = 0; s < step_patterns.size(); ++s) {
    planar_steps_[s].pattern = &planar_patterns_[step_patterns[s]];
  }
  planar_window_ = window;
  return true;
}

void DepthwiseUint8Fast::FillPlane(const uint8_t* plane_in, int16_t* plane, int64_t height,
                                   int64_t width) const {
  const ref::DepthwiseConv2dParams& p = p_;
  const int32_t zero_point = quant_.input_zero_point;
  // The padded plane: row y, column x holds input (y - pad_top, x - pad_left),
  // and 0 outside the input. The caller zeroed the plane, and every channel
  // writes the same inside part, so the padding stays 0 without being
  // written again.
  const int64_t x_begin = std::max<int64_t>(0, p.pad_left);
  const int64_t x_end = std::max<int64_t>(x_begin, std::min<int64_t>(width, p.pad_left + p.in_w));
  const int64_t y_begin = std::max<int64_t>(0, p.pad_top);
  const int64_t y_end = std::min<int64_t>(height, p.pad_top + p.in_h);
  for (int64_t y = y_begin; y < y_end; ++y) {
    int16_t* row = plane + y * width;
    const uint8_t* in = plane_in + (y - p.pad_top) * p.in_w - p.pad_left;
    // Bytes readable from in + x_begin: the rest of the input plane.
    const int64_t bytes_left = (y_end - 1 - y) * p.in_w + p.in_w - (x_begin - p.pad_left);
    WidenUint8Row(in, row, x_begin, x_end, width, bytes_left, zero_point);
  }
}

DepthwiseUint8Row DepthwiseUint8Fast::TapsRow(int64_t oc, int64_t count) const {
  DepthwiseUint8Row row;
  std::copy(taps_.data() + oc * 9, taps_.data() + oc * 9 + 9, row.taps);
  row.count = count;
  return row;
}

void DepthwiseUint8Fast::RunChannelFlat(const uint8_t* plane_in, int64_t n, int64_t c,
                                        const int32_t* bias, uint8_t* output, int16_t* plane,
                                        int32_t* sums, uint8_t* bytes) const {
  const ref::DepthwiseConv2dParams& p = p_;
  FillPlane(plane_in, plane, flat_h_, flat_w_);
  const int64_t out_channels = p.channels * p.multiplier;
  for (int64_t m = 0; m < p.multiplier; ++m) {
    const int64_t oc = c * p.multiplier + m;
    DepthwiseUint8Row row = TapsRow(oc, flat_count_);
    for (int i = 0; i < 3; ++i) row.rows[i] = plane + i * flat_w_;
    const QuantizedMultiplier& multiplier = quant_.multiplier(oc);
    const int64_t bias_value = bias != nullptr ? bias[oc] : 0;
    uint8_t* out_plane = output + (n * out_channels + oc) * p.out_h * p.out_w;
    if (VectorRequantizeApplies(bias_value, 9 * 255 * 255, multiplier)) {
      // The whole plane in one fused call into `bytes`, then its rows
      // without the dropped outputs.
      DepthwiseUint8RequantRow fused;
      fused.row = row;
      fused.output = MakeRequantizeRow(nullptr, nullptr, bias_value, multiplier, quant_.output,
                                       flat_count_, bytes);
      fused.out_rows = 1;
      flat_kernel_(fused);
      int64_t y = CopyUint8RowsWide(bytes, flat_w_, p.out_h, p.out_w, out_plane);
      for (; y < p.out_h; ++y) {
        std::copy(bytes + y * flat_w_, bytes + y * flat_w_ + p.out_w, out_plane + y * p.out_w);
      }
      continue;
    }
    // Sums that could saturate, or a multiplier of 1 or more: the row
    // kernel's sums and the scalar rule.
    row.sums = sums;
    row_kernel_(row);
    for (int64_t y = 0; y < p.out_h; ++y) {
      for (int64_t x = 0; x < p.out_w; ++x) {
        out_plane[y * p.out_w + x] = RequantizeToUint8(
            ref::quantized::SaturateToInt32(bias_value + sums[y * flat_w_ + x]), multiplier,
            quant_.output);
      }
    }
  }
}

void DepthwiseUint8Fast::RunChannel(const uint8_t* plane_in, int64_t n, int64_t c,
                                    const int32_t* bias, uint8_t* output, int16_t* plane,
                                    int32_t* sums) const {
  const ref::DepthwiseConv2dParams& p = p_;
  FillPlane(plane_in, plane, plane_h_, plane_w_);
  const int64_t out_channels = p.channels * p.multiplier;
  for (int64_t m = 0; m < p.multiplier; ++m) {
    const int64_t oc = c * p.multiplier + m;
    DepthwiseUint8Row row = TapsRow(oc, p.out_w);
    row.sums = sums;
    const QuantizedMultiplier& multiplier = quant_.multiplier(oc);
    const int64_t bias_value = bias != nullptr ? bias[oc] : 0;
    uint8_t* out_plane = output + (n * out_channels + oc) * p.out_h * p.out_w;
    if (requant_kernel_ != nullptr &&
        VectorRequantizeApplies(bias_value, 9 * 255 * 255, multiplier)) {
      // Requantized in the row kernel's registers: no int32 sums in memory.
      DepthwiseUint8RequantRow fused;
      fused.row = row;
      fused.output = MakeRequantizeRow(nullptr, nullptr, bias_value, multiplier, quant_.output,
                                       p.out_w, nullptr);
      for (int i = 0; i < 3; ++i) fused.row.rows[i] = plane + i * plane_w_;
      fused.output.out = out_plane;
      fused.out_rows = p.out_h;
      fused.input_step = p.stride_h * plane_w_;
      fused.output_step = p.out_w;
      requant_kernel_(fused);
      continue;
    }
    // The sums of the whole output plane, row after row: a row's padding
    // lanes spill into the next row's start, which that row then
    // overwrites, so the plane is requantized in one step.
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      for (int i = 0; i < 3; ++i) row.rows[i] = plane + (oy * p.stride_h + i) * plane_w_;
      row.sums = sums + oy * p.out_w;
      row_kernel_(row);
    }
    const int64_t count = p.out_h * p.out_w;
    if (requantize_row_ != nullptr &&
        VectorRequantizeApplies(bias_value, 9 * 255 * 255, multiplier)) {
      requantize_row_(MakeRequantizeRow(sums, nullptr, bias_value, multiplier, quant_.output,
                                        count, out_plane));
      continue;
    }
    for (int64_t x = 0; x < count; ++x) {
      out_plane[x] = RequantizeToUint8(ref::quantized::SaturateToInt32(bias_value + sums[x]),
                                       multiplier, quant_.output);
    }
  }
}

namespace {

// Output rows per work item of the blocked path: about 4096 positions (the
// tile and staging buffers stay in L2), fewer where that leaves under four
// items per thread, but at least 16 positions (one transpose step).
int64_t BlockedBandRows(int64_t out_h, int64_t out_w, int64_t planes, int threads) {
  int64_t rows = std::min(out_h, std::max<int64_t>(1, 4096 / out_w));
  while (planes * ((out_h + rows - 1) / rows) < 4 * threads && rows > 1 &&
         (rows / 2) * out_w >= 16) {
    rows = (rows + 1) / 2;
  }
  return rows;
}

}  // namespace

int64_t DepthwiseUint8Fast::BlockedTileBytes(int64_t band_rows) const {
  return ((band_rows - 1) * p_.stride_h + 3) * blocked_w_ * kDepthwiseUint8Block + 64;
}

void DepthwiseUint8Fast::RunBlock(const uint8_t* input, int64_t n, int64_t block, int64_t oy0,
                                  int64_t oy1, const int32_t* terms, uint8_t* output,
                                  uint8_t* tile, uint8_t* staging) const {
  const ref::DepthwiseConv2dParams& p = p_;
  constexpr int64_t kBlock = kDepthwiseUint8Block;
  const int64_t c0 = block * kBlock;
  const int64_t valid = std::min<int64_t>(kBlock, p.channels - c0);
  const int64_t plane = p.in_h * p.in_w;
  const uint8_t* planes = input + (n * p.channels + c0) * plane;
  // The tile: padded rows y0 .. y1 - 1 (input row y - pad_top), positions
  // 0 .. blocked_w_ - 1 (input column x - pad_left), the zero point outside
  // the input.
  const int64_t y0 = oy0 * p.stride_h, y1 = (oy1 - 1) * p.stride_h + 3;
  const int64_t iy0 = std::max<int64_t>(0, y0 - p.pad_top);
  const int64_t iy1 = std::min<int64_t>(p.in_h, y1 - p.pad_top);
  const int64_t cols = std::max<int64_t>(0, std::min<int64_t>(p.in_w, blocked_w_ - p.pad_left));
  // Only the padding is filled here; the transpose writes the rest.
  const uint8_t zero_point = static_cast<uint8_t>(quant_.input_zero_point);
  const int64_t left = std::min<int64_t>(p.pad_left, blocked_w_);
  for (int64_t y = y0; y < y1; ++y) {
    uint8_t* row = tile + (y - y0) * blocked_w_ * kBlock;
    if (y - p.pad_top < iy0 || y - p.pad_top >= iy1) {
      std::fill(row, row + blocked_w_ * kBlock, zero_point);
      continue;
    }
    std::fill(row, row + left * kBlock, zero_point);
    std::fill(row + (left + cols) * kBlock, row + blocked_w_ * kBlock, zero_point);
  }
  DepthwiseUint8Block run;
  run.planes = planes;
  run.plane = plane;
  run.valid = valid;
  run.in_w = p.in_w;
  run.first = iy0 * p.in_w;
  run.last = iy1 * p.in_w;
  run.cols = cols;
  run.tile_offset = ((p.pad_top - y0) * blocked_w_ + p.pad_left) * kBlock;
  run.tile = tile;
  run.row_stride = blocked_w_;
  run.stride_h = p.stride_h;
  run.stride_w = p.stride_w;
  run.out_h = oy1 - oy0;
  run.out_w = p.out_w;
  run.taps = block_taps_.data() + block * 3 * kBlock * 4;
  run.terms = terms + c0;
  run.multipliers = block_multipliers_.data() + c0;
  run.right_shifts = block_shifts_.data() + c0;
  run.zero_point = quant_.output.zero_point;
  run.lo = quant_.output.min;
  run.hi = quant_.output.max;
  run.staging = staging;
  run.out = output + (n * p.channels + c0) * p.out_h * p.out_w + oy0 * p.out_w;
  run.out_plane = p.out_h * p.out_w;
  block_kernel_(run);
}

bool DepthwiseUint8Fast::RunBlocked(const uint8_t* input, const int32_t* bias, uint8_t* output,
                                    ThreadPool* pool) const {
  const ref::DepthwiseConv2dParams& p = p_;
  constexpr int64_t kBlock = kDepthwiseUint8Block;
  const int64_t blocks = (p.channels + kBlock - 1) / kBlock;
  // Each channel's term, bias - input zero point x tap sum, modulo 2^32:
  // the kernel's wrapping total is exact where the true one fits in int32.
  std::vector<int32_t> terms(blocks * kBlock, 0);
  for (int64_t c = 0; c < p.channels; ++c) {
    const int64_t bias_value = bias != nullptr ? bias[c] : 0;
    if (!VectorRequantizeApplies(bias_value, 9 * 255 * 255, quant_.multiplier(c))) return false;
    terms[c] = static_cast<int32_t>(static_cast<uint32_t>(
        bias_value - int64_t{quant_.input_zero_point} * tap_sums_[c]));
  }
  if (planar_kernel_ != nullptr) {
    RunPlanar(input, terms.data(), output, pool);
    return true;
  }
  const int threads = pool != nullptr ? pool->num_threads() : 1;
  const int64_t band_rows = BlockedBandRows(p.out_h, p.out_w, p.batch * blocks, threads);
  const int64_t bands = (p.out_h + band_rows - 1) / band_rows;
  ParallelFor(pool, p.batch * blocks * bands, [&](int64_t begin, int64_t end) {
    // Per thread, kept between runs and layers: RunBlock writes every byte
    // of the tile and staging it reads, so no allocation or zero fill per
    // layer.
    static thread_local std::vector<uint8_t> tile, staging;
    const size_t tile_bytes = BlockedTileBytes(band_rows);
    const size_t staging_bytes = band_rows * p.out_w * kBlock;
    if (tile.size() < tile_bytes) tile.resize(tile_bytes);
    if (staging.size() < staging_bytes) staging.resize(staging_bytes);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t band = item % bands, plane = item / bands;
      const int64_t oy0 = band * band_rows, oy1 = std::min(p.out_h, oy0 + band_rows);
      RunBlock(input, plane / blocks, plane % blocks, oy0, oy1, terms.data(), output, tile.data(),
               staging.data());
    }
  });
  return true;
}

void DepthwiseUint8Fast::RunPlanar(const uint8_t* input, const int32_t* terms, uint8_t* output,
                                   ThreadPool* pool) const {
  const ref::DepthwiseConv2dParams& p = p_;
  DepthwiseUint8Planar run;
  run.in_plane = p.in_h * p.in_w;
  run.out_plane = p.out_h * p.out_w;
  run.steps = planar_steps_.data();
  run.window = planar_window_;
  run.zero_point = quant_.output.zero_point;
  run.lo = quant_.output.min;
  run.hi = quant_.output.max;
  ParallelFor(pool, p.batch * p.channels, [&](int64_t begin, int64_t end) {
    DepthwiseUint8Planar part = run;
    // One call per image's run of channels.
    for (int64_t index = begin; index < end; index += part.channels) {
      const int64_t c = index % p.channels;
      part.channels = std::min(end - index, p.channels - c);
      part.in = input + index * run.in_plane;
      part.out = output + index * run.out_plane;
      part.quads = planar_quads_.data() + 3 * c;
      part.terms = terms + c;
      part.scales = planar_scales_.data() + c;
      planar_kernel_(part);
    }
  });
}

void DepthwiseUint8Fast::Run(const uint8_t* input, const int32_t* bias, uint8_t* output,
                             ThreadPool* pool) const {
  const ref::DepthwiseConv2dParams& p = p_;
  if ((block_kernel_ != nullptr || planar_kernel_ != nullptr) &&
      RunBlocked(input, bias, output, pool)) {
    return;
  }
  const int64_t planes = p.batch * p.channels;
  if (flat_count_ > 0) {
    ParallelFor(pool, planes, [&](int64_t begin, int64_t end) {
      // The row kernel reads up to 2 rows + PaddedCount(flat_count_) + 2
      // values from the plane's start; zeroed here, and only the inside is
      // written per channel.
      const int64_t padded = PaddedCount(flat_count_);
      std::vector<int16_t> plane(std::max(flat_h_ * flat_w_, 2 * flat_w_ + padded + 3), 0);
      std::vector<int32_t> sums(padded);
      std::vector<uint8_t> bytes(padded + 16);
      for (int64_t index = begin; index < end; ++index) {
        const int64_t n = index / p.channels, c = index % p.channels;
        RunChannelFlat(input + index * p.in_h * p.in_w, n, c, bias, output, plane.data(),
                       sums.data(), bytes.data());
      }
    });
    return;
  }
  ParallelFor(pool, planes, [&](int64_t begin, int64_t end) {
    // Zeroed here: RunChannel writes only the part inside the input.
    std::vector<int16_t> plane(plane_h_ * plane_w_, 0);
    std::vector<int32_t> sums((p.out_h - 1) * p.out_w + padded_count_);
    for (int64_t index = begin; index < end; ++index) {
      const int64_t n = index / p.channels, c = index % p.channels;
      RunChannel(input + index * p.in_h * p.in_w, n, c, bias, output, plane.data(), sums.data());
    }
  });
}

}  // namespace ops
}  // namespace mace
