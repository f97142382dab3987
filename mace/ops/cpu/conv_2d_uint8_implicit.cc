#include "mace/ops/cpu/conv_2d_uint8_implicit.h"

#include <algorithm>

#include "mace/ops/cpu/quantized_output.h"

namespace mace {
namespace ops {
namespace {

// 65000 x 255 x 128 < 2^31: the int32 sums of uint8 x int8 bytes are exact.
constexpr int64_t kMaxDepth = 65000;
// Inputs below this many bytes are packed by the calling thread alone.
constexpr int64_t kSerialPackBytes = 64 * 1024;
// Rows of the kernel's blocks: threads split the rows in multiples of it.
constexpr int64_t kRowTile = kQuantConvRows;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

int64_t CeilDiv(int64_t value, int64_t divisor) { return (value + divisor - 1) / divisor; }

}  // namespace

std::unique_ptr<Conv2dUint8Implicit> Conv2dUint8Implicit::Create(
    const KernelTable& table, const ref::Conv2DParams& params,
    const ref::quantized::ConvQuantization& quant, const void* filter, bool int8_filter) {
  const ref::Conv2DParams& p = params;
  if (table.quantized_conv_taps == nullptr || table.quantized_quad_pack == nullptr ||
      table.quantized_format != kQuantQuadsUint8) {
    return nullptr;
  }
  const int64_t taps = p.kernel_h * p.kernel_w;
  if (taps < 2 || p.group != 1 || p.dilation_h != 1 || p.dilation_w != 1 || p.stride_h < 1 ||
      p.stride_h > 2 || p.stride_w < 1 || p.stride_w > 2 || p.pad_top < 0 || p.pad_left < 0 ||
      p.out_h < 1 || p.out_w < 1 || p.in_channels < 1 || p.out_channels < 1) {
    return nullptr;
  }
  const int64_t quads = CeilDiv(p.in_channels, 4);
  if (quads * 4 * taps > kMaxDepth) return nullptr;

  std::unique_ptr<Conv2dUint8Implicit> conv(new Conv2dUint8Implicit());
  conv->kernel_ = table.quantized_conv_taps;
  conv->pack_ = table.quantized_quad_pack;
  conv->p_ = p;
  conv->quant_ = quant;
  conv->depth_ = p.in_channels * taps;
  conv->quads_ = quads;
  const int64_t sh = p.stride_h, sw = p.stride_w;
  conv->phases_ = sh * sw;
  // The padded extent the outputs read, and the phase planes that hold it.
  const int64_t padded_h = (p.out_h - 1) * sh + p.kernel_h;
  const int64_t padded_w = (p.out_w - 1) * sw + p.kernel_w;
  conv->phase_rows_ = CeilDiv(padded_h, sh);
  conv->flat_width_ = CeilDiv(padded_w, sw);
  conv->cols_ = RoundUp(p.out_h * conv->flat_width_, kQuantGemmCols);
  for (int64_t i = 0; i < p.kernel_h; ++i) {
    for (int64_t j = 0; j < p.kernel_w; ++j) {
      conv->tap_offsets_.push_back((i / sh) * conv->flat_width_ + j / sw);
    }
  }
  const int64_t max_offset = *std::max_element(conv->tap_offsets_.begin(), conv->tap_offsets_.end());
  // The kernel reads up to the last strip's end plus the largest offset.
  conv->plane_words_ =
      RoundUp(std::max(conv->phase_rows_ * conv->flat_width_, conv->cols_ + max_offset), 16);
  for (int64_t i = 0; i < p.kernel_h; ++i) {
    for (int64_t j = 0; j < p.kernel_w; ++j) {
      conv->tap_offsets_[i * p.kernel_w + j] += ((i % sh) * sw + j % sw) * conv->plane_words_;
    }
  }

  // Filter words (quad q, tap t) of each row, byte l the weight of channel
  // 4q + l as int8 (uint8 weights minus 128), 0 past the input's channels,
  // in the kernel's blocks of rows (see QuantizedConvTaps).
  const int32_t weight_offset = int8_filter ? 0 : 128;
  conv->input_correction_ = weight_offset - quant.filter_zero_point;
  conv->rows_ = RoundUp(p.out_channels, kQuantGemmRows);
  conv->filter_.assign(conv->rows_ * quads * taps, 0);
  conv->filter_sums_.assign(p.out_channels, 0);
  // One row at a time: its sum, then each word from its four channels,
  // written once. As int8, a uint8 weight minus 128 is the byte with its
  // top bit flipped.
  const uint8_t* raw = static_cast<const uint8_t*>(filter);
  const uint8_t flip = int8_filter ? 0 : 0x80;
  const int64_t per_row = p.in_channels * taps;
  for (int64_t oc = 0; oc < p.out_channels; ++oc) {
    const uint8_t* w = raw + oc * per_row;
    int64_t sum = 0;
    if (int8_filter) {
      for (int64_t k = 0; k < per_row; ++k) sum += static_cast<int8_t>(w[k]);
    } else {
      for (int64_t k = 0; k < per_row; ++k) sum += w[k];
    }
    conv->filter_sums_[oc] = sum - per_row * int64_t{quant.filter_zero_point};
    const int64_t block = oc / kRowTile * kRowTile;
    const int64_t block_rows = std::min<int64_t>(kRowTile, conv->rows_ - block);
    int32_t* row = conv->filter_.data() + block * quads * taps + oc - block;
    for (int64_t q = 0; q < quads; ++q) {
      const int64_t lanes = std::min<int64_t>(4, p.in_channels - 4 * q);
      const uint8_t* channel = w + 4 * q * taps;
      for (int64_t t = 0; t < taps; ++t) {
        uint32_t word = 0;
        for (int64_t l = 0; l < lanes; ++l) {
          word |= uint32_t{static_cast<uint8_t>(channel[l * taps + t] ^ flip)} << (8 * l);
        }
        row[(q * taps + t) * block_rows] = static_cast<int32_t>(word);
      }
    }
  }

  // The padding: the input zero point in the lanes of real channels.
  const uint32_t zq = static_cast<uint8_t>(quant.input_zero_point);
  conv->input_.resize(quads * conv->phases_ * conv->plane_words_);
  for (int64_t q = 0; q < quads; ++q) {
    uint32_t word = 0;
    for (int64_t l = 0; l < 4 && q * 4 + l < p.in_channels; ++l) word |= zq << (8 * l);
    std::fill(conv->input_.begin() + q * conv->phases_ * conv->plane_words_,
              conv->input_.begin() + (q + 1) * conv->phases_ * conv->plane_words_,
              static_cast<int32_t>(word));
  }
  conv->zero_row_.assign(p.in_w, 0);
  if (conv->input_correction_ != 0) {
    conv->position_sums_.assign(conv->phases_ * conv->plane_words_, 0);
    conv->column_terms_.assign(conv->cols_, 0);
  }
  conv->row_terms_.assign(conv->rows_, 0);
  conv->multipliers_.assign(conv->rows_, 0);
  conv->shifts_.assign(conv->rows_, 1);
  return conv;
}

bool Conv2dUint8Implicit::SetRows(const int32_t* bias) {
  for (int64_t oc = 0; oc < p_.out_channels; ++oc) {
    const int64_t bias_value = bias != nullptr ? bias[oc] : 0;
    const QuantizedMultiplier& multiplier = quant_.multiplier(oc);
    if (!VectorRequantizeApplies(bias_value, depth_ * 255 * 255, multiplier)) return false;
    const int64_t term = bias_value - int64_t{quant_.input_zero_point} * filter_sums_[oc];
    // Modulo 2^32, exact for the total (see RequantizeRow).
    row_terms_[oc] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(term)));
    multipliers_[oc] = multiplier.multiplier;
    shifts_[oc] = multiplier.right_shift;
  }
  return true;
}

// Writes the inside of the padded phase planes: input row iy is padded row
// Y = iy + pad_top, in phase row Y % sh at Y / sh; its columns of phase pw
// are those with (ix + pad_left) % sw == pw. Rows and columns past the
// padded extent the outputs read are left out.
void Conv2dUint8Implicit::Pack(const uint8_t* image, ThreadPool* pool) {
  const ref::Conv2DParams& p = p_;
  const int64_t sh = p.stride_h, sw = p.stride_w;
  const int64_t padded_h = (p.out_h - 1) * sh + p.kernel_h;
  const int64_t padded_w = (p.out_w - 1) * sw + p.kernel_w;
  const int64_t plane = p.in_h * p.in_w;
  ThreadPool* pack_pool = p.in_channels * plane < kSerialPackBytes ? nullptr : pool;
  // Threads split the (quad, input row) pairs, so that a stem's single
  // quad is shared too.
  const int64_t in_rows = std::max<int64_t>(0, std::min(p.in_h, padded_h - p.pad_top));
  ParallelFor(pack_pool, quads_ * in_rows, [&](int64_t begin, int64_t end) {
    const uint8_t* rows[4];
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t q = unit / in_rows, iy = unit % in_rows;
      int32_t* quad = input_.data() + q * phases_ * plane_words_;
      const int64_t y = iy + p.pad_top;
      for (int64_t pw = 0; pw < sw; ++pw) {
        const int64_t first = ((pw - p.pad_left) % sw + sw) % sw;
        const int64_t limit = std::min<int64_t>(p.in_w, padded_w - p.pad_left);
        if (limit <= first) continue;
        const int64_t count = CeilDiv(limit - first, sw);
        for (int64_t l = 0; l < 4; ++l) {
          const int64_t c = q * 4 + l;
          rows[l] = c < p.in_channels ? image + c * plane + iy * p.in_w + first
                                      : zero_row_.data() + first;
        }
        int32_t* dst = quad + ((y % sh) * sw + pw) * plane_words_ + (y / sh) * flat_width_ +
                       (first + p.pad_left) / sw;
        pack_(rows, sw, count, dst);
      }
    }
  });
}

// Column term of flat position p: input_correction x the sum of the bytes
// its window reads, over the quads (channels past the input's hold 0) and
// the taps.
void Conv2dUint8Implicit::ColumnSums() {
  const int64_t words = phases_ * plane_words_;
  std::fill(position_sums_.begin(), position_sums_.end(), 0);
  for (int64_t q = 0; q < quads_; ++q) {
    const uint32_t* quad = reinterpret_cast<const uint32_t*>(input_.data()) + q * words;
    int32_t* sums = position_sums_.data();
    for (int64_t i = 0; i < words; ++i) {
      const uint32_t w = quad[i];
      sums[i] += static_cast<int32_t>((w & 0xFF) + ((w >> 8) & 0xFF) + ((w >> 16) & 0xFF) +
                                      (w >> 24));
    }
  }
  std::fill(column_terms_.begin(), column_terms_.end(), 0);
  for (const int64_t offset : tap_offsets_) {
    const int32_t* sums = position_sums_.data() + offset;
    int32_t* terms = column_terms_.data();
    for (int64_t i = 0; i < cols_; ++i) terms[i] += sums[i];
  }
  // Wrapping int32 products: exact wherever the total fits in int32.
  const uint32_t correction = static_cast<uint32_t>(input_correction_);
  for (int32_t& term : column_terms_) {
    term = static_cast<int32_t>(correction * static_cast<uint32_t>(term));
  }
}

bool Conv2dUint8Implicit::Run(const uint8_t* input, const int32_t* bias, uint8_t* output,
                              ThreadPool* pool) {
  if (!SetRows(bias)) return false;
  const ref::Conv2DParams& p = p_;
  const int64_t taps = p.kernel_h * p.kernel_w;
  QuantizedConvTaps conv;
  conv.filter = filter_.data();
  conv.input = input_.data();
  conv.quads = quads_;
  conv.quad_stride = phases_ * plane_words_;
  conv.tap_offsets = tap_offsets_.data();
  conv.taps = taps;
  conv.output.row_terms = row_terms_.data();
  conv.output.multipliers = multipliers_.data();
  conv.output.right_shifts = shifts_.data();
  conv.output.column_terms = input_correction_ != 0 ? column_terms_.data() : nullptr;
  conv.output.zero_point = quant_.output.zero_point;
  conv.output.lo = quant_.output.min;
  conv.output.hi = quant_.output.max;
  conv.output.valid_rows = p.out_channels;
  conv.flat_width = flat_width_;
  conv.out_h = p.out_h;
  conv.out_w = p.out_w;
  // Work units: strips of kQuantGemmCols flat positions, each split into
  // `parts` ranges of rows (whole 12-row tiles) where there are too few
  // strips to share among threads evenly. The pool deals out up to 4
  // pieces per thread, whole units each, so about 16 units per thread keep
  // the threads' shares within a few percent (7 strips of a 13 x 13
  // output at 2 threads: 35 units, not 14 split 8 to 6).
  const int64_t threads = NumThreads(pool);
  const int64_t strips = cols_ / kQuantGemmCols;
  const int64_t row_tiles = CeilDiv(rows_, kRowTile);
  int64_t parts = 1;
  if (threads > 1) {
    parts = std::min(row_tiles, std::max<int64_t>(1, CeilDiv(16 * threads, strips)));
  }
  for (int64_t n = 0; n < p.batch; ++n) {
    Pack(input + n * p.in_channels * p.in_h * p.in_w, pool);
    if (input_correction_ != 0) ColumnSums();
    conv.output.out = output + n * p.out_channels * p.out_h * p.out_w;
    if (threads == 1) {
      conv.row_begin = 0;
      conv.row_end = rows_;
      conv.col_begin = 0;
      conv.col_end = cols_;
      kernel_(conv);
      continue;
    }
    ParallelFor(pool, strips * parts, [&](int64_t begin, int64_t end) {
      QuantizedConvTaps unit = conv;
      for (int64_t u = begin; u < end; ++u) {
        const int64_t strip = u / parts, part = u % parts;
        unit.col_begin = strip * kQuantGemmCols;
        unit.col_end = unit.col_begin + kQuantGemmCols;
        unit.row_begin = std::min(rows_, row_tiles * part / parts * kRowTile);
        unit.row_end = std::min(rows_, row_tiles * (part + 1) / parts * kRowTile);
        if (unit.row_begin < unit.row_end) kernel_(unit);
      }
    });
  }
  return true;
}

}  // namespace ops
}  // namespace mace
