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
  conv->packed_input_.assign(conv->words_ * conv->cols_, 0);
  conv->input_sums_.assign(conv->cols_, 0);
  conv->sums_.assign(conv->rows_ * conv->cols_, 0);
  return conv;
}

// im2col of one group of one image into packed words: taps outside the
// input hold the input zero point.
void Conv2dUint8Gemm::PackInput(const uint8_t* image, int64_t group) {
  const ref::Conv2DParams& p = p_;
  const int64_t in_per_group = p.in_channels / p.group;
  const int64_t positions = p.out_h * p.out_w;
  const int32_t zq = quant_.input_zero_point;
  const bool quads = format_ != kQuantPairsInt16;
  // Pairs carry (x - zq); quads carry x itself and sum it per position.
  const int32_t subtract = quads ? 0 : zq;
  int32_t values[4];
  std::fill(input_sums_.begin(), input_sums_.end(), 0);
  for (int64_t word = 0; word < words_; ++word) {
    int32_t* out = packed_input_.data() + word * cols_;
    for (int64_t pos = 0; pos < positions; ++pos) {
      const int64_t oh = pos / p.out_w, ow = pos % p.out_w;
      int64_t count = 0;
      for (int64_t k = word * per_word_; k < depth_ && count < per_word_; ++k, ++count) {
        const int64_t ic = k / (p.kernel_h * p.kernel_w);
        const int64_t tap = k % (p.kernel_h * p.kernel_w);
        const int64_t ih = oh * p.stride_h - p.pad_top + (tap / p.kernel_w) * p.dilation_h;
        const int64_t iw = ow * p.stride_w - p.pad_left + (tap % p.kernel_w) * p.dilation_w;
        const bool inside = ih >= 0 && ih < p.in_h && iw >= 0 && iw < p.in_w;
        const int32_t x =
            inside ? image[((group * in_per_group + ic) * p.in_h + ih) * p.in_w + iw] : zq;
        values[count] = x - subtract;
        input_sums_[pos] += x;
      }
      out[pos] = PackWord(format_, values, count);
    }
  }
}

void Conv2dUint8Gemm::Run(const uint8_t* input, const int32_t* bias, uint8_t* output) {
  const ref::Conv2DParams& p = p_;
  const int64_t positions = p.out_h * p.out_w;
  const int64_t out_per_group = p.out_channels / p.group;
  const bool quads = format_ != kQuantPairsInt16;
  const int64_t input_correction = weight_offset_ - quant_.filter_zero_point;
  for (int64_t n = 0; n < p.batch; ++n) {
    const uint8_t* image = input + n * p.in_channels * p.in_h * p.in_w;
    for (int64_t group = 0; group < p.group; ++group) {
      PackInput(image, group);
      gemm_(packed_filter_.data() + group * rows_ * words_, packed_input_.data(), rows_, words_,
            cols_, sums_.data());
      for (int64_t r = 0; r < out_per_group; ++r) {
        const int64_t oc = group * out_per_group + r;
        const QuantizedMultiplier& multiplier = quant_.multiplier(oc);
        int64_t channel_term = bias != nullptr ? bias[oc] : 0;
        if (quads) channel_term -= int64_t{quant_.input_zero_point} * filter_sums_[oc];
        const int32_t* sums = sums_.data() + r * cols_;
        uint8_t* out = output + (n * p.out_channels + oc) * positions;
        for (int64_t pos = 0; pos < positions; ++pos) {
          int64_t sum = channel_term + sums[pos];
          if (quads) sum += input_correction * input_sums_[pos];
          out[pos] = RequantizeToUint8(ref::quantized::SaturateToInt32(sum), multiplier,
                                       quant_.output);
        }
      }
    }
  }
}

}  // namespace ops
}  // namespace mace
