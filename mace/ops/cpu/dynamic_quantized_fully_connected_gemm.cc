#include "mace/ops/cpu/dynamic_quantized_fully_connected_gemm.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace mace {
namespace ops {
namespace {

// Deepest reduction whose sums and corrections stay exact in int32: the
// GEMM's sums (at most 255 x 255 per product), the unsigned quads' 128 sum q
// and z sum w (255 x 127 each per value) add up to below 2^31.
constexpr int64_t kMaxDepth = 16384;

// The packed input a column block holds, so that it stays in L2 while the
// row pieces stream over it.
constexpr int64_t kColumnBlockBytes = 192 * 1024;

// Output features per work item: a multiple of kQuantGemmRows.
constexpr int64_t kPieceRows = 32;
// Input rows the output step finishes at a time.
constexpr int64_t kTileCols = 16;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

uint32_t PairWord(int32_t low, int32_t high) {
  return static_cast<uint16_t>(static_cast<int16_t>(low)) |
         (static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(high))) << 16);
}

uint32_t QuadWord(const int32_t* bytes) {
  uint32_t word = 0;
  for (int i = 0; i < 4; ++i) {
    word |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  }
  return word;
}

// One row of a tile of outputs: values[c] for c < kTileCols, from the
// GEMM's sums and the per-row corrections, in int32 (exact for depths up to
// kMaxDepth). A fixed count and unaliased pointers let it vectorize.
void FinishTileRow(const int32_t* __restrict sums, const int32_t* __restrict terms,
                   const int32_t* __restrict zeros, const float* __restrict scales,
                   int32_t weight_sum, float weight_scale, float bias,
                   float* __restrict values) {
  for (int64_t c = 0; c < kTileCols; ++c) {
    const int32_t sum = sums[c] + terms[c] - zeros[c] * weight_sum;
    values[c] = ref::DynamicOutput(static_cast<float>(sum), scales[c], weight_scale, bias);
  }
}

}  // namespace

std::unique_ptr<DynamicInt8Gemm> DynamicInt8Gemm::Create(const KernelTable& table, int64_t units,
                                                         int64_t depth, const int8_t* weight) {
  if (table.quantized_gemm == nullptr || units <= 0 || depth <= 0) return nullptr;
  const QuantGemmFormat format = table.quantized_format;
  if (depth > kMaxDepth) return nullptr;
  std::unique_ptr<DynamicInt8Gemm> gemm(new DynamicInt8Gemm());
  gemm->gemm_ = table.quantized_gemm;
  gemm->format_ = format;
  gemm->units_ = units;
  gemm->depth_ = depth;
  gemm->per_word_ = format == kQuantPairsInt16 ? 2 : 4;
  gemm->words_ = RoundUp(depth, gemm->per_word_) / gemm->per_word_;
  gemm->rows_ = RoundUp(units, kQuantGemmRows);
  // The unsigned quads store w + 128; the others w. Past the depth the
  // words hold 0 on the input side, so what the weight holds there adds 0.
  const int32_t offset = format == kQuantQuadsUint8Unsigned ? 128 : 0;
  gemm->packed_weight_.assign(gemm->rows_ * gemm->words_, 0);
  gemm->weight_sums_.assign(units, 0);
  std::vector<int32_t> row(gemm->words_ * gemm->per_word_, offset);
  for (int64_t u = 0; u < units; ++u) {
    const int8_t* w = weight + u * depth;
    int64_t sum = 0;
    for (int64_t k = 0; k < depth; ++k) {
      row[k] = w[k] + offset;
      sum += w[k];
    }
    gemm->weight_sums_[u] = static_cast<int32_t>(sum);
    int32_t* packed = gemm->packed_weight_.data() + u * gemm->words_;
    for (int64_t word = 0; word < gemm->words_; ++word) {
      packed[word] = static_cast<int32_t>(format == kQuantPairsInt16
                                              ? PairWord(row[2 * word], row[2 * word + 1])
                                              : QuadWord(row.data() + 4 * word));
    }
  }
  return gemm;
}

int64_t DynamicInt8Gemm::HeldBytes() const {
  return VectorBytes(packed_weight_, weight_sums_, rows_q_, row_params_, row_scales_,
                     zero_points_, column_terms_, packed_input_, sums_);
}

void DynamicInt8Gemm::PackInput(const float* input, int64_t batch, ThreadPool* pool) {
  const int64_t padded_depth = words_ * per_word_;
  cols_ = RoundUp(batch, kQuantGemmCols);
  const int64_t block_cols =
      std::max<int64_t>(kQuantGemmCols, kColumnBlockBytes / (4 * words_) / kQuantGemmCols *
                                            kQuantGemmCols);
  width_ = std::min(cols_, block_cols);
  // Rows past the batch stay 0, and so do the values past the depth.
  rows_q_.assign(cols_ * padded_depth, 0);
  row_params_.resize(batch);
  // Padded to cols_, which the output step reads in whole tiles.
  column_terms_.assign(cols_, 0);
  zero_points_.assign(cols_, 0);
  row_scales_.assign(cols_, 0.f);
  packed_input_.resize(words_ * cols_);
  const bool pairs = format_ == kQuantPairsInt16;
  // Threads take strips of kQuantGemmCols columns (a strip never crosses a
  // block): they quantize its rows, then write each word of the strip's
  // columns as one contiguous run.
  ParallelFor(pool, cols_ / kQuantGemmCols, [&](int64_t begin, int64_t end) {
    for (int64_t strip = begin; strip < end; ++strip) {
      const int64_t first = strip * kQuantGemmCols;
      for (int64_t b = first; b < std::min(batch, first + kQuantGemmCols); ++b) {
        uint8_t* q = rows_q_.data() + b * padded_depth;
        const ref::DynamicRow row = ref::QuantizeRowDynamic(input + b * depth_, depth_, q);
        row_params_[b] = row;
        row_scales_[b] = row.scale;
        if (format_ != kQuantPairsInt16) {
          // The quads multiply q itself: subtract z sum_k w, and for the
          // unsigned ones 128 sum_k q as well.
          zero_points_[b] = row.zero_point;
          if (format_ == kQuantQuadsUint8Unsigned) {
            int32_t q_sum = 0;
            for (int64_t k = 0; k < depth_; ++k) q_sum += q[k];
            column_terms_[b] = -128 * q_sum;
          }
        }
      }
      const int64_t block_first = first / width_ * width_;
      const int64_t width = std::min(width_, cols_ - block_first);
      int32_t* out = packed_input_.data() + block_first * words_ + (first - block_first);
      const uint8_t* q = rows_q_.data() + first * padded_depth;
      if (pairs) {
        // q - z, and 0 past the depth and the batch.
        int32_t zero[kQuantGemmCols] = {};
        for (int64_t c = 0; c < kQuantGemmCols && first + c < batch; ++c) {
          zero[c] = row_params_[first + c].zero_point;
        }
        for (int64_t word = 0; word < words_; ++word) {
          const int64_t k = 2 * word;
          const bool second = k + 1 < depth_;
          for (int64_t c = 0; c < kQuantGemmCols; ++c) {
            const uint8_t* row = q + c * padded_depth;
            const int32_t low = first + c < batch ? row[k] - zero[c] : 0;
            const int32_t high = first + c < batch && second ? row[k + 1] - zero[c] : 0;
            out[word * width + c] = static_cast<int32_t>(PairWord(low, high));
          }
        }
      } else {
        for (int64_t word = 0; word < words_; ++word) {
          for (int64_t c = 0; c < kQuantGemmCols; ++c) {
            uint32_t value;
            std::memcpy(&value, q + c * padded_depth + 4 * word, 4);
            out[word * width + c] = static_cast<int32_t>(value);
          }
        }
      }
    }
  });
}

void DynamicInt8Gemm::Run(const ref::FullyConnectedParams& p,
                          const float* input, const float* weight_scale, const float* bias,
                          float* output, ThreadPool* pool) {
  const int64_t batch = p.batch;
  if (batch <= 0) return;
  PackInput(input, batch, pool);
  const int threads = NumThreads(pool);
  sums_.resize(threads * kPieceRows * width_);
  const int64_t blocks = (cols_ + width_ - 1) / width_;
  const int64_t pieces = (rows_ + kPieceRows - 1) / kPieceRows;
  const bool activate = p.activation.type != ActivationType::NOOP;
  ParallelFor(pool, blocks * pieces, [&](int64_t begin, int64_t end, int chunk) {
    int32_t* sums = sums_.data() + chunk * kPieceRows * width_;
    float tile[kPieceRows * kTileCols];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t block = item / pieces, piece = item % pieces;
      const int64_t first_col = block * width_;
      const int64_t width = std::min(width_, cols_ - first_col);
      const int64_t first_row = piece * kPieceRows;
      const int64_t rows = std::min(kPieceRows, rows_ - first_row);
      gemm_(packed_weight_.data() + first_row * words_, packed_input_.data() + first_col * words_,
            rows, words_, width, sums);
      const int64_t last_col = std::min(batch, first_col + width);
      const int64_t units = std::min(units_, first_row + rows) - first_row;
      // sums is [rows][width], the output [batch][units_]: each tile of
      // kTileCols columns is finished along the rows of sums (vectorizable),
      // then written out transposed.
      for (int64_t tile_col = first_col; tile_col < last_col; tile_col += kTileCols) {
        const int64_t count = std::min(last_col - tile_col, kTileCols);
        const int32_t* terms = column_terms_.data() + tile_col;
        const int32_t* zeros = zero_points_.data() + tile_col;
        const float* scales = row_scales_.data() + tile_col;
        for (int64_t r = 0; r < units; ++r) {
          const int64_t u = first_row + r;
          FinishTileRow(sums + r * width + (tile_col - first_col), terms, zeros, scales,
                        weight_sums_[u], weight_scale[u], bias != nullptr ? bias[u] : 0.f,
                        tile + r * kTileCols);
        }
        for (int64_t c = 0; c < count; ++c) {
          const int64_t row = tile_col + c;
          float* out = output + row * units_ + first_row;
          if (!row_params_[row].finite) {
            std::fill(out, out + units, std::numeric_limits<float>::quiet_NaN());
            continue;
          }
          for (int64_t r = 0; r < units; ++r) out[r] = tile[r * kTileCols + c];
          if (activate) {
            for (int64_t r = 0; r < units; ++r) out[r] = p.activation.Apply(out[r]);
          }
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
