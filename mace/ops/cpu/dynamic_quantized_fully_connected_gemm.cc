#include "mace/ops/cpu/dynamic_quantized_fully_connected_gemm.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace mace {
namespace ops {
namespace {

// Deepest reduction whose int32 sums stay exact: the GEMM's sums hold at
// most 255 x 255 per product, and so does the wanted sum S. The
// corrections can pass 2^31 on the way, so the output step adds them
// modulo 2^32, which gives S exactly since S fits in int32.
constexpr int64_t kMaxDepth = 16384;

constexpr int64_t kColumnBlockBytes = 192 * 1024;

// Input rows per work item: a multiple of kQuantGemmRows.
constexpr int64_t kPieceRows = 32;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The GEMM multiplies A's words (the input) by B's (the weight values r,
// stored as B = r + offset), and the wanted sum S = sum (q - z)(r - w_zero)
// is C + row_factor * sum B + row_term * (offset + w_zero), with row_term
// = z depth - sum q:
//   pairs:           A = q - z (int16), B = r (int16); row_factor 0;
//   signed quads:    A = q - 128 (int8), B = r (+ 128 for int8 r) (uint8);
//                    row_factor = 128 - z;
//   unsigned quads:  A = q, B as for the signed quads (uint8); row_factor = -z.
int32_t WeightOffset(QuantGemmFormat format, bool int8_weight) {
  return format != kQuantPairsInt16 && int8_weight ? 128 : 0;
}

// Loops over blocks of kBlock values: GCC's -O2 cost model vectorizes a
// loop only when no scalar remainder is left, so the drivers run fixed-size
// blocks and do the remainder on their own.
constexpr int64_t kBlock = 16;

// The per-column arrays of the output step, from a column on.
struct Columns {
  const int32_t* __restrict sums;   // sum B over the depth
  const int32_t* __restrict zeros;  // offset + w_zero
  const float* __restrict scales;
  const float* __restrict bias;
  Columns From(int64_t u) const { return {sums + u, zeros + u, scales + u, bias + u}; }
};

// kBlock outputs from the GEMM's sums and the corrections, added modulo
// 2^32 (exact for depths up to kMaxDepth).
inline void FinishBlock(const int32_t* __restrict sums, uint32_t row_term, uint32_t row_factor,
                        const Columns& c, float row_scale, float* __restrict out) {
  for (int64_t u = 0; u < kBlock; ++u) {
    const uint32_t sum = static_cast<uint32_t>(sums[u]) +
                         row_factor * static_cast<uint32_t>(c.sums[u]) +
                         row_term * static_cast<uint32_t>(c.zeros[u]);
    out[u] = ref::DynamicOutput(static_cast<float>(static_cast<int32_t>(sum)), row_scale,
                                c.scales[u], c.bias[u]);
  }
}

// One row of outputs, out[u] for u < count; the other arrays are readable
// up to count rounded up to kBlock.
void FinishRow(const int32_t* sums, int32_t row_term, int32_t row_factor, const Columns& c,
               float row_scale, int64_t count, float* out) {
  const uint32_t term = static_cast<uint32_t>(row_term);
  const uint32_t factor = static_cast<uint32_t>(row_factor);
  int64_t u = 0;
  for (; u + kBlock <= count; u += kBlock) {
    FinishBlock(sums + u, term, factor, c.From(u), row_scale, out + u);
  }
  if (u < count) {
    float last[kBlock];
    FinishBlock(sums + u, term, factor, c.From(u), row_scale, last);
    std::copy(last, last + (count - u), out + u);
  }
}

// Sum of q[k] for k < count, and out[k] = q[k] with its top bit flipped
// (q - 128 as int8) when `flip`, else q[k].
int32_t CopyRow(const uint8_t* __restrict q, int64_t count, bool flip, uint8_t* __restrict out) {
  const uint8_t mask = flip ? 0x80 : 0;
  int32_t total = 0;
  int64_t k = 0;
  for (; k + kBlock <= count; k += kBlock) {
    int32_t block = 0;
    for (int64_t i = 0; i < kBlock; ++i) {
      block += q[k + i];
      out[k + i] = static_cast<uint8_t>(q[k + i] ^ mask);
    }
    total += block;
  }
  for (; k < count; ++k) {
    total += q[k];
    out[k] = static_cast<uint8_t>(q[k] ^ mask);
  }
  return total;
}

// out[k] = q[k] - z as int16, for k < count; returns the sum of q.
int32_t ShiftRow(const uint8_t* __restrict q, int64_t count, int32_t z, int16_t* __restrict out) {
  int32_t total = 0;
  int64_t k = 0;
  for (; k + kBlock <= count; k += kBlock) {
    int32_t block = 0;
    for (int64_t i = 0; i < kBlock; ++i) {
      block += q[k + i];
      out[k + i] = static_cast<int16_t>(q[k + i] - z);
    }
    total += block;
  }
  for (; k < count; ++k) {
    total += q[k];
    out[k] = static_cast<int16_t>(q[k] - z);
  }
  return total;
}

}  // namespace

std::unique_ptr<DynamicInt8Gemm> DynamicInt8Gemm::Create(const KernelTable& table, int64_t units,
                                                         int64_t depth,
                                                         const ref::DynamicWeight& weight,
                                                         const TransformerKernels* row_kernels) {
  if (table.quantized_gemm == nullptr || units <= 0 || depth <= 0 || depth > kMaxDepth) {
    return nullptr;
  }
  std::unique_ptr<DynamicInt8Gemm> gemm(new DynamicInt8Gemm());
  const QuantGemmFormat format = table.quantized_format;
  gemm->gemm_ = table.quantized_gemm;
  gemm->row_kernels_ = row_kernels != nullptr ? row_kernels : PortableTransformerKernels();
  gemm->format_ = format;
  gemm->units_ = units;
  gemm->depth_ = depth;
  gemm->per_word_ = format == kQuantPairsInt16 ? 2 : 4;
  gemm->words_ = RoundUp(depth, gemm->per_word_) / gemm->per_word_;
  gemm->cols_ = RoundUp(units, kQuantGemmCols);
  gemm->width_ = std::min(
      gemm->cols_, std::max<int64_t>(kQuantGemmCols, kColumnBlockBytes / (4 * gemm->words_) /
                                                         kQuantGemmCols * kQuantGemmCols));
  // Past the depth and the units the input's words are 0, so what the
  // weight holds there adds nothing; it holds the offset, as a 0 weight.
  const int32_t offset = WeightOffset(format, weight.int8 != nullptr);
  const int64_t words = gemm->words_;
  gemm->packed_weight_.assign(words * gemm->cols_, 0);
  gemm->weight_sums_.assign(gemm->cols_, 0);
  gemm->weight_zeros_.assign(gemm->cols_, 0);
  gemm->weight_scales_.assign(gemm->cols_, 0.f);
  gemm->bias_.assign(gemm->cols_, 0.f);
  std::vector<int32_t> column(words * gemm->per_word_);
  for (int64_t u = 0; u < gemm->cols_; ++u) {
    int32_t sum = 0;
    for (int64_t k = 0; k < words * gemm->per_word_; ++k) {
      const int32_t value = u < units && k < depth ? weight.Value(u * depth + k) : 0;
      column[k] = value + offset;
      if (k < depth) sum += value + offset;
    }
    gemm->weight_sums_[u] = sum;
    gemm->weight_zeros_[u] = offset + (u < units ? weight.ZeroPoint(u) : 0);
    const int64_t first = u / gemm->width_ * gemm->width_;
    const int64_t width = std::min(gemm->width_, gemm->cols_ - first);
    int32_t* packed = gemm->packed_weight_.data() + first * words + (u - first);
    for (int64_t word = 0; word < words; ++word) {
      uint32_t value = 0;
      if (format == kQuantPairsInt16) {
        value = static_cast<uint16_t>(static_cast<int16_t>(column[2 * word])) |
                (static_cast<uint32_t>(static_cast<uint16_t>(
                     static_cast<int16_t>(column[2 * word + 1])))
                 << 16);
      } else {
        for (int i = 0; i < 4; ++i) {
          value |= static_cast<uint32_t>(static_cast<uint8_t>(column[4 * word + i])) << (8 * i);
        }
      }
      packed[word * width] = static_cast<int32_t>(value);
    }
  }
  return gemm;
}

int64_t DynamicInt8Gemm::HeldBytes() const {
  return VectorBytes(packed_weight_, weight_sums_, weight_zeros_, weight_scales_, bias_,
                     packed_input_, rows_q_, row_params_, row_ranges_, row_terms_, row_factors_,
                     sums_);
}

ref::DynamicRange DynamicInt8Gemm::RowRange(const float* row, int64_t count) const {
  ref::DynamicRange range;
  range.finite = row_kernels_->row_range(row, count, &range.low, &range.high);
  return range;
}

void DynamicInt8Gemm::PackInput(const float* input, int64_t batch, bool per_tensor,
                                ThreadPool* pool) {
  rows_ = RoundUp(batch, kQuantGemmRows);
  // Rows past the batch and values past the depth pack as 0.
  const int64_t row_bytes = 4 * words_;
  packed_input_.resize(rows_ * row_bytes);
  std::fill(packed_input_.begin() + batch * row_bytes, packed_input_.end(), uint8_t{0});
  const int64_t depth = depth_;
  rows_q_.resize(batch * depth);
  row_params_.resize(batch);
  row_terms_.assign(rows_, 0);
  row_factors_.assign(rows_, 0);
  // Per tensor: the range of every row, merged, gives the one scale and
  // zero point; then the rows quantize with it in parallel.
  ref::DynamicRow tensor;
  if (per_tensor) {
    row_ranges_.resize(batch);
    ParallelFor(pool, batch, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        row_ranges_[b] = RowRange(input + b * depth, depth);
      }
    });
    ref::DynamicRange range;
    for (const ref::DynamicRange& row : row_ranges_) range = ref::MergeRanges(range, row);
    tensor = ref::TensorRowDynamic(range);
  }
  const QuantGemmFormat format = format_;
  ParallelFor(pool, batch, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      uint8_t* q = rows_q_.data() + b * depth;
      ref::DynamicRow row = tensor;
      if (per_tensor) {
        ref::QuantizeWithRowDynamic(input + b * depth, depth, tensor, q);
      } else {
        row = ref::RowDynamic(RowRange(input + b * depth, depth));
        if (!row.finite) {
          std::fill(q, q + depth, uint8_t{0});
        } else {
          row_kernels_->quantize_row(input + b * depth, depth, ref::RowFactor(row),
                                     static_cast<float>(row.zero_point), q);
        }
      }
      row_params_[b] = row;
      const int32_t z = row.zero_point;
      uint8_t* words = packed_input_.data() + b * row_bytes;
      std::fill(words + row_bytes - 4, words + row_bytes, uint8_t{0});  // past the depth
      int32_t q_sum = 0;
      if (format == kQuantPairsInt16) {
        q_sum = ShiftRow(q, depth, z, reinterpret_cast<int16_t*>(words));
      } else {
        const bool signed_quads = format == kQuantQuadsUint8;
        q_sum = CopyRow(q, depth, signed_quads, words);
        row_factors_[b] = signed_quads ? 128 - z : -z;
      }
      row_terms_[b] = z * static_cast<int32_t>(depth) - q_sum;
    }
  });
}

void DynamicInt8Gemm::Run(const ref::FullyConnectedParams& p, const float* input, bool per_tensor,
                          const float* weight_scale, const float* bias, float* output,
                          ThreadPool* pool) {
  const int64_t batch = p.batch;
  if (batch <= 0) return;
  PackInput(input, batch, per_tensor, pool);
  const int threads = NumThreads(pool);
  sums_.resize(threads * kPieceRows * width_);
  const int64_t blocks = (cols_ + width_ - 1) / width_;
  const int64_t pieces = (rows_ + kPieceRows - 1) / kPieceRows;
  const bool activate = p.activation.type != ActivationType::NOOP;
  // The output step reads whole blocks: copies padded to cols_.
  std::copy(weight_scale, weight_scale + units_, weight_scales_.begin());
  if (bias != nullptr) {
    std::copy(bias, bias + units_, bias_.begin());
  } else {
    std::fill(bias_.begin(), bias_.end(), 0.f);
  }
  const Columns columns{weight_sums_.data(), weight_zeros_.data(), weight_scales_.data(),
                        bias_.data()};
  ParallelFor(pool, blocks * pieces, [&](int64_t begin, int64_t end, int chunk) {
    int32_t* sums = sums_.data() + chunk * kPieceRows * width_;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t block = item / pieces, piece = item % pieces;
      const int64_t first_col = block * width_;
      const int64_t width = std::min(width_, cols_ - first_col);
      const int64_t first_row = piece * kPieceRows;
      const int64_t rows = std::min(kPieceRows, rows_ - first_row);
      const int32_t* a = reinterpret_cast<const int32_t*>(packed_input_.data()) + first_row * words_;
      gemm_(a, packed_weight_.data() + first_col * words_, rows, words_, width, sums);
      const int64_t count = std::min(units_, first_col + width) - first_col;
      for (int64_t b = first_row; b < std::min(batch, first_row + rows); ++b) {
        const ref::DynamicRow& row = row_params_[b];
        float* out = output + b * units_ + first_col;
        if (!row.finite) {
          std::fill(out, out + count, std::numeric_limits<float>::quiet_NaN());
          continue;
        }
        FinishRow(sums + (b - first_row) * width, row_terms_[b], row_factors_[b],
                  columns.From(first_col), row.scale, count, out);
        if (activate) {
          for (int64_t u = 0; u < count; ++u) out[u] = p.activation.Apply(out[u]);
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
