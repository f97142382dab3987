#include "mace/ops/cpu/conv_2d_uint8_gemm.h"

#include <algorithm>

namespace mace {
namespace ops {
namespace {

// Deepest reduction whose int32 sums cannot overflow: 255 x 255 per product
// for the int16 pairs, 255 x 128 for the quads (with the corrections added
// in int64 afterwards).
constexpr int64_t kMaxPairsDepth = 33000;
constexpr int64_t kMaxQuadsDepth = 65000;

int64_t RoundUp(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// The packed input a column block may hold, so that it stays in L2 (256 KiB
// or more per core on the targets) while every row tile of the filter
// streams over it; without blocks each 4-row tile read the whole packed
// input (1.8 MB for 64 channels, 3x3, 56x56).
constexpr int64_t kColumnBlockBytes = 192 * 1024;

uint32_t PairWord(int32_t low, int32_t high) {
  return static_cast<uint16_t>(static_cast<int16_t>(low)) |
         (static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(high))) << 16);
}

uint32_t QuadWord(const int32_t* bytes) {
  uint32_t word = 0;
  for (int i = 0; i < 4; ++i) word |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  return word;
}

// Packs `count` values (padded with zeros to a whole word) into one word.
int32_t PackWord(QuantGemmFormat format, const int32_t* values, int64_t count) {
  int32_t padded[4] = {0, 0, 0, 0};
  for (int64_t i = 0; i < count; ++i) padded[i] = values[i];
  const uint32_t word =
      format == kQuantPairsInt16 ? PairWord(padded[0], padded[1]) : QuadWord(padded);
  return static_cast<int32_t>(word);
}

}  // namespace

std::unique_ptr<Conv2dUint8Gemm> Conv2dUint8Gemm::Create(
    const KernelTable& table, const ref::Conv2DParams& params,
    const ref::quantized::ConvQuantization& quant, const void* filter, bool int8_filter) {
  if (table.quantized_gemm == nullptr) return nullptr;
  const int64_t in_per_group = params.in_channels / params.group;
  const int64_t depth = in_per_group * params.kernel_h * params.kernel_w;
  const QuantGemmFormat format = table.quantized_format;
  const bool quads = format != kQuantPairsInt16;
  // Unsigned quads multiply up to 255 x 255, like the pairs.
  if (depth > (format == kQuantQuadsUint8 ? kMaxQuadsDepth : kMaxPairsDepth)) return nullptr;

  std::unique_ptr<Conv2dUint8Gemm> conv(new Conv2dUint8Gemm());
  conv->gemm_ = table.quantized_gemm;
  conv->format_ = table.quantized_format;
  conv->p_ = params;
  conv->quant_ = quant;
  conv->depth_ = depth;
  conv->per_word_ = quads ? 4 : 2;
  conv->words_ = RoundUp(depth, conv->per_word_) / conv->per_word_;
  const int64_t out_per_group = params.out_channels / params.group;
  conv->rows_ = RoundUp(out_per_group, kQuantGemmRows);
  conv->cols_ = RoundUp(params.out_h * params.out_w, kQuantGemmCols);
  // Stored weight = w - weight_offset_: int8 for the signed quads, uint8 for
  // the unsigned ones.
  if (format == kQuantQuadsUint8) conv->weight_offset_ = int8_filter ? 0 : 128;
  if (format == kQuantQuadsUint8Unsigned) conv->weight_offset_ = int8_filter ? -128 : 0;

  // Weights as the format wants them: minus the zero point for the pairs,
  // minus the offset (uint8 to int8) for the quads.
  const int32_t subtract = quads ? conv->weight_offset_ : quant.filter_zero_point;
  conv->packed_filter_.assign(params.group * conv->rows_ * conv->words_, 0);
  conv->filter_sums_.assign(params.out_channels, 0);
  std::vector<int32_t> row(conv->words_ * conv->per_word_, 0);
  for (int64_t oc = 0; oc < params.out_channels; ++oc) {
    for (int64_t k = 0; k < depth; ++k) {
      const int32_t w = int8_filter ? static_cast<const int8_t*>(filter)[oc * depth + k]
                                    : static_cast<const uint8_t*>(filter)[oc * depth + k];
      row[k] = w - subtract;
      conv->filter_sums_[oc] += w - quant.filter_zero_point;
    }
    const int64_t group = oc / out_per_group;
    int32_t* packed =
        conv->packed_filter_.data() + (group * conv->rows_ + oc % out_per_group) * conv->words_;
    for (int64_t word = 0; word < conv->words_; ++word) {
      const int64_t first = word * conv->per_word_;
      packed[word] = PackWord(conv->format_, row.data() + first,
                              std::min<int64_t>(conv->per_word_, depth - first));
    }
  }
  conv->packed_input_.assign(conv->words_ * conv->cols_ * 4, 0);
  conv->input_sums_.assign(conv->cols_, 0);
  conv->column_terms_.assign(conv->cols_, 0);
  conv->requantize_row_ = table.requantize_row;
  conv->sums_.assign(conv->rows_ * conv->cols_, 0);
  conv->block_cols_ = std::min<int64_t>(
      conv->cols_,
      std::max<int64_t>(kQuantGemmCols, kColumnBlockBytes / (4 * conv->words_) /
                                            kQuantGemmCols * kQuantGemmCols));
  if (conv->block_cols_ < conv->cols_) {
    conv->block_input_.assign(conv->words_ * conv->block_cols_, 0);
    conv->block_sums_.assign(conv->rows_ * conv->block_cols_, 0);
  }
  return conv;
}

// im2col of one group of one image into packed words, one k (input channel
// and tap) at a time: value k of column `pos` is lane k % per_word_ of word
// (k / per_word_, pos). Taps outside the input hold the input zero point.
// Lanes past the depth and columns past the positions were zeroed at Create
// and are never written.
template <typename Lane>
void Conv2dUint8Gemm::PackLanes(const uint8_t* image, int64_t group, int32_t subtract) {
  const ref::Conv2DParams& p = p_;
  const int64_t in_per_group = p.in_channels / p.group;
  const int32_t zq = quant_.input_zero_point;
  const int64_t taps = p.kernel_h * p.kernel_w;
  Lane* lanes = reinterpret_cast<Lane*>(packed_input_.data());  // storage of bytes
  const Lane outside = static_cast<Lane>(zq - subtract);
  const bool pointwise = taps == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
                         p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w;
  if (pointwise) {
    // Channels are the reduction: interleave per_word_ planes at a time.
    const int64_t positions = p.in_h * p.in_w;
    const uint8_t* first_plane = image + group * in_per_group * positions;
    for (int64_t word = 0; word < words_; ++word) {
      Lane* out = lanes + word * cols_ * per_word_;
      const int64_t lanes_here = std::min<int64_t>(per_word_, depth_ - word * per_word_);
      for (int64_t lane = 0; lane < lanes_here; ++lane) {
        const uint8_t* plane = first_plane + (word * per_word_ + lane) * positions;
        for (int64_t pos = 0; pos < positions; ++pos) {
          out[pos * per_word_ + lane] = static_cast<Lane>(plane[pos] - subtract);
        }
      }
    }
    return;
  }
  for (int64_t k = 0; k < depth_; ++k) {
    const int64_t ic = k / taps, kh = (k % taps) / p.kernel_w, kw = k % p.kernel_w;
    const uint8_t* plane = image + (group * in_per_group + ic) * p.in_h * p.in_w;
    Lane* out = lanes + (k / per_word_) * cols_ * per_word_ + k % per_word_;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      const int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
      Lane* row = out + oh * p.out_w * per_word_;
      if (ih < 0 || ih >= p.in_h) {
        for (int64_t ow = 0; ow < p.out_w; ++ow) row[ow * per_word_] = outside;
        continue;
      }
      const uint8_t* in_row = plane + ih * p.in_w;
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
        row[ow * per_word_] =
            iw >= 0 && iw < p.in_w ? static_cast<Lane>(in_row[iw] - subtract) : outside;
      }
    }
  }
}

void Conv2dUint8Gemm::PackInput(const uint8_t* image, int64_t group) {
  if (format_ == kQuantPairsInt16) {
    PackLanes<int16_t>(image, group, quant_.input_zero_point);
    return;
  }
  PackLanes<uint8_t>(image, group, 0);
  // The quads' correction needs each column's sum of inputs.
  const int64_t positions = p_.out_h * p_.out_w;
  const uint8_t* bytes = packed_input_.data();
  std::fill(input_sums_.begin(), input_sums_.end(), 0);
  for (int64_t word = 0; word < words_; ++word) {
    const uint8_t* column = bytes + word * cols_ * 4;
    for (int64_t pos = 0; pos < positions; ++pos) {
      input_sums_[pos] += column[4 * pos] + column[4 * pos + 1] + column[4 * pos + 2] +
                          column[4 * pos + 3];
    }
  }
}

void Conv2dUint8Gemm::FinishRow(int64_t n, int64_t oc, const int32_t* sums, const int32_t* bias,
                                uint8_t* output) const {
  const int64_t positions = p_.out_h * p_.out_w;
  const bool quads = format_ != kQuantPairsInt16;
  const int64_t input_correction = weight_offset_ - quant_.filter_zero_point;
  const QuantizedMultiplier& multiplier = quant_.multiplier(oc);
  const int64_t bias_value = bias != nullptr ? bias[oc] : 0;
  int64_t channel_term = bias_value;
  if (quads) channel_term -= int64_t{quant_.input_zero_point} * filter_sums_[oc];
  uint8_t* out = output + (n * p_.out_channels + oc) * positions;
  // The vector step needs an exact int32 total (no saturation) and a
  // multiplier below 1.
  const bool fits =
      (bias_value < 0 ? -bias_value : bias_value) + depth_ * 255 * 255 < (int64_t{1} << 31);
  const bool below_one = int64_t{multiplier.multiplier} < (int64_t{1} << multiplier.right_shift);
  if (requantize_row_ != nullptr && fits && below_one) {
    RequantizeRow row;
    row.sums = sums;
    row.column_terms = quads ? column_terms_.data() : nullptr;
    row.row_term = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(channel_term)));
    row.multiplier = multiplier.multiplier;
    row.right_shift = multiplier.right_shift;
    row.zero_point = quant_.output.zero_point;
    row.lo = quant_.output.min;
    row.hi = quant_.output.max;
    row.count = positions;
    row.out = out;
    requantize_row_(row);
    return;
  }
  for (int64_t pos = 0; pos < positions; ++pos) {
    int64_t sum = channel_term + sums[pos];
    if (quads) sum += input_correction * input_sums_[pos];
    out[pos] =
        RequantizeToUint8(ref::quantized::SaturateToInt32(sum), multiplier, quant_.output);
  }
}

void Conv2dUint8Gemm::Run(const uint8_t* input, const int32_t* bias, uint8_t* output,
                          ThreadPool* pool) {
  const ref::Conv2DParams& p = p_;
  const int64_t positions = p.out_h * p.out_w;
  const int64_t out_per_group = p.out_channels / p.group;
  const bool quads = format_ != kQuantPairsInt16;
  const int64_t input_correction = weight_offset_ - quant_.filter_zero_point;
  for (int64_t n = 0; n < p.batch; ++n) {
    const uint8_t* image = input + n * p.in_channels * p.in_h * p.in_w;
    for (int64_t group = 0; group < p.group; ++group) {
      PackInput(image, group);
      if (quads) {
        // Wrapping int32 products: exact wherever the total fits in int32.
        for (int64_t pos = 0; pos < positions; ++pos) {
          column_terms_[pos] = static_cast<int32_t>(
              static_cast<uint32_t>(input_correction) * static_cast<uint32_t>(input_sums_[pos]));
        }
      }
      // Row tiles are independent: each piece multiplies its rows and
      // finishes them.
      const int32_t* packed_input = reinterpret_cast<const int32_t*>(packed_input_.data());
      const int32_t* filter = packed_filter_.data() + group * rows_ * words_;
      if (block_cols_ < cols_) {
        MultiplyInColumnBlocks(filter, packed_input, pool);
        ParallelFor(pool, out_per_group, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            FinishRow(n, group * out_per_group + r, sums_.data() + r * cols_, bias, output);
          }
        });
        continue;
      }
      ParallelFor(pool, rows_ / kQuantGemmRows, [&](int64_t begin, int64_t end) {
        const int64_t first = begin * kQuantGemmRows;
        gemm_(filter + first * words_, packed_input, (end - begin) * kQuantGemmRows, words_, cols_,
              sums_.data() + first * cols_);
        for (int64_t r = first; r < std::min(end * kQuantGemmRows, out_per_group); ++r) {
          FinishRow(n, group * out_per_group + r, sums_.data() + r * cols_, bias, output);
        }
      });
    }
  }
}

// Copies each block of block_cols_ columns of the packed input into a
// contiguous [words_][block_cols_] panel, multiplies every row tile with it
// while it sits in cache, and scatters the block's sums into sums_. The sums
// are the same as those of one GEMM over all columns.
void Conv2dUint8Gemm::MultiplyInColumnBlocks(const int32_t* filter, const int32_t* packed_input,
                                             ThreadPool* pool) {
  for (int64_t first_col = 0; first_col < cols_; first_col += block_cols_) {
    const int64_t width = std::min(block_cols_, cols_ - first_col);
    for (int64_t word = 0; word < words_; ++word) {
      std::copy(packed_input + word * cols_ + first_col,
                packed_input + word * cols_ + first_col + width,
                block_input_.data() + word * width);
    }
    ParallelFor(pool, rows_ / kQuantGemmRows, [&](int64_t begin, int64_t end) {
      const int64_t first = begin * kQuantGemmRows, count = (end - begin) * kQuantGemmRows;
      gemm_(filter + first * words_, block_input_.data(), count, words_, width,
            block_sums_.data() + first * width);
      for (int64_t r = first; r < first + count; ++r) {
        std::copy(block_sums_.data() + r * width, block_sums_.data() + (r + 1) * width,
                  sums_.data() + r * cols_ + first_col);
      }
    });
  }
}

}  // namespace ops
}  // namespace mace
