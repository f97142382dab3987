// The fast uint8 Conv2D: im2col into the packed words of the kernel table's
// uint8 GEMM (quantized_micro_kernels.h), one GEMM per image and group, and
// an integer epilogue that adds the bias and the zero-point corrections,
// saturates to int32 and requantizes with the rule of common/quantize.h
// (vectorized by the table's requantize_row where the total cannot
// saturate and the multiplier is below 1; a scalar int64 loop otherwise).
// Where every row of a group meets those conditions and the table has a
// fused kernel (quantized_gemm_requant), the GEMM requantizes its
// accumulators in registers and stores bytes, with no int32 sums in
// memory. Its results equal ref::quantized::Conv2D bit for bit.
//
// Create packs the filter. Run packs the input (threads split the packed
// words) straight into L2-sized blocks of columns, then runs the GEMM of
// every row of the filter over each block; threads split the blocks and
// requantize each block's outputs as soon as its sums are done. A pointwise
// layer packs each block just before its GEMM, into a per-thread buffer
// (within an L1 where its rows are fused). The block width, or where the
// threads split the output channels instead the height of their pieces, is
// chosen on the first run for a thread count by scheduling the work as the
// thread pool would.
#ifndef MACE_OPS_CPU_CONV_2D_UINT8_GEMM_H_
#define MACE_OPS_CPU_CONV_2D_UINT8_GEMM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class Conv2dUint8Gemm {
 public:
  // Null where the table has no uint8 GEMM or the reduction is so deep that
  // the GEMM's int32 sums could overflow (the reference kernel saturates).
  // `filter` is uint8 unless `int8_filter`.
  static std::unique_ptr<Conv2dUint8Gemm> Create(const KernelTable& table,
                                                 const ref::Conv2DParams& params,
                                                 const ref::quantized::ConvQuantization& quant,
                                                 const void* filter, bool int8_filter);

  // Threads split the column blocks (or, with too few, the output channels
  // in tiles of kQuantGemmRows); `pool` may be null (one thread).
  void Run(const uint8_t* input, const int32_t* bias, uint8_t* output,
           ThreadPool* pool = nullptr);

  // Makes the fused output step's per-row terms for `bias` (null: none)
  // once, for the runs that pass this same pointer: for a bias whose values
  // do not change between runs (a weight). A run with another pointer makes
  // its own, as without this call.
  void PrepareBias(const int32_t* bias);

  // Bytes kept between runs: packed filters, packed input, sums and terms.
  int64_t HeldBytes() const {
    return VectorBytes(packed_filter_, filter_sums_, packed_input_, input_sums_, column_terms_,
                       sums_, row_terms_, row_multipliers_, row_shifts_);
  }

  const char* name() const {
    switch (format_) {
      case kQuantQuadsUint8: return "uint8 gemm (u8 x s8 quads)";
      case kQuantQuadsUint8Unsigned: return "uint8 gemm (u8 x u8 quads)";
      default: return "uint8 gemm (s16 pairs)";
    }
  }

 private:
  Conv2dUint8Gemm() = default;
  // How `threads` threads split a run: the width of the packed input's
  // column blocks (every column in one block where the threads split the
  // rows instead) and the height of the row pieces they then take; with
  // `fused` (every row on the fused output step) blocks bounded by the
  // packed input alone. Chosen on the first run with those and kept.
  struct Split {
    int64_t width = 0;
    int64_t piece_rows = 0;
  };
  const Split& ChooseSplit(int64_t threads, bool fused);
  // Packs the whole input in blocks of `width` columns.
  void PackInput(const uint8_t* image, int64_t group, int64_t width, ThreadPool* pool);
  // A 1x1 stride-1 unpadded layer: its input planes are the GEMM's rows.
  bool Pointwise() const;
  // Packs `count` values of each lane (per_word_ lanes) into word `word` of
  // the columns from `pos` on, in blocks of `width` columns.
  void EmitWords(int64_t width, int64_t word, int64_t pos, const uint8_t* const* lanes,
                 int64_t count, uint8_t subtract);
  // A pointwise layer's columns [first, first + count) of every word into
  // `block`, laid out [words_][block_width] (count <= block_width; the
  // columns past count keep what they held).
  void PackPointwiseBlock(const uint8_t* image, int64_t group, int64_t first, int64_t count,
                          int64_t block_width, int32_t* block);
  // Bias, corrections and requantization of output channel `oc` of image n,
  // positions [first, first + count) from sums[0, count).
  void FinishRow(int64_t n, int64_t oc, const int32_t* sums, const int32_t* bias,
                 uint8_t* output, int64_t first, int64_t count) const;
  // Whether the outputs need the quads' per-column input correction
  // (weight_offset_ - filter zero point) x (sum of the column's inputs): not
  // for the pairs, whose words are already minus the zero points, nor where
  // that factor is 0 (int8 filters on the signed quads); PackInput then
  // skips the sums.
  bool ColumnCorrection() const {
    return format_ != kQuantPairsInt16 && weight_offset_ != quant_.filter_zero_point;
  }
  // bias + the quads' filter correction of output channel oc, in int64.
  int64_t ChannelTerm(int64_t oc, const int32_t* bias) const;
  // Fills the fused output step's per-row terms of `group` (from row
  // group * rows_ on); false where
  // there is no fused kernel or a row's total could saturate or its
  // multiplier is not below 1 (the driver then runs FinishRow).
  bool FusedRows(int64_t group, const int32_t* bias);

  QuantizedGemmKernel gemm_ = nullptr;
  RequantizeRowKernel requantize_row_ = nullptr;
  QuantizedGemmRequantKernel gemm_requant_ = nullptr;
  // The table's quad packing (AVX-512), used for kQuantQuadsUint8 words.
  QuantizedQuadPackKernel quad_pack_ = nullptr;
  QuantGemmFormat format_ = kQuantPairsInt16;
  ref::Conv2DParams p_;
  ref::quantized::ConvQuantization quant_;
  int64_t depth_ = 0;      // reduction length per group: in_per_group * kernel taps
  int64_t per_word_ = 2;   // k values per packed word
  int64_t words_ = 0;      // packed words per row or column
  int64_t rows_ = 0;       // output channels per group, padded
  int64_t cols_ = 0;       // output positions, padded
  int32_t weight_offset_ = 0;  // subtracted from the weights for the quads
  std::vector<int32_t> packed_filter_;  // per group: [rows_][words_]
  std::vector<int64_t> filter_sums_;    // per output channel: sum(w - zw), quads only
  // Blocks of [words_][block width] words, as bytes: the packing writes
  // lanes of uint8 or int16 into it, and the GEMM reads the words.
  std::vector<uint8_t> packed_input_;
  std::vector<int32_t> input_sums_;     // per position: sum of the inputs, quads only
  std::vector<int32_t> column_terms_;   // per position: the quads' input correction
  std::vector<int32_t> sums_;           // [rows_][cols_], only where threads split the rows
  // The fused output step's per-row terms, multipliers and shifts, rows_
  // entries per group.
  std::vector<int32_t> row_terms_, row_multipliers_, row_shifts_;
  // What PrepareBias made: for which bias, and per group whether the fused
  // step applies; valid until a run with another bias.
  const int32_t* prepared_bias_ = nullptr;
  bool bias_prepared_ = false;
  std::vector<uint8_t> fused_groups_;
  // Most columns per cache block (a multiple of kQuantGemmCols): the packed
  // input of a block fits in L2.
  int64_t block_cols_ = 0;
  // The same without the sums (the fused output step): only the packed
  // input of a block bounds it, to kFusedBlockBytes.
  int64_t fused_block_cols_ = 0;
  Split split_;
  int64_t split_threads_ = 0;  // the thread count split_ is for (0: none yet)
  bool split_fused_ = false;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_UINT8_GEMM_H_
