#include "mace/ops/cpu/conv_2d_uint8_gemm.h"

#include <algorithm>

#include "mace/ops/cpu/conv_2d_uint8_lanes.h"
#include "mace/ops/cpu/quantized_output.h"
#include "mace/utils/logging.h"


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

// The packed block of a fused pointwise layer, which it packs just before
// its GEMM: within an L1 (48 KiB here; 32 to 64 KiB on phones), so that the
// GEMM reads what the packing just wrote from there. On MobileNet v2 at one
// thread, 48 KiB against 96 and 192 KiB came out 1 to 4 % quicker on the
// Conv2D op medians (loaded host, alternating runs).
constexpr int64_t kFusedBlockBytes = 48 * 1024;

// Packed inputs below this many words (128 KiB) are packed on one thread.
constexpr int64_t kSerialPackWords = 32 * 1024;

uint32_t PairWord(int32_t low, int32_t high) {
  return static_cast<uint16_t>(static_cast<int16_t>(low)) |
         (static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(high))) << 16);
}

uint32_t QuadWord(const int32_t* bytes) {
  uint32_t word = 0;
  for (int i = 0; i < 4; ++i) word |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  return word;
}

// The packed input is laid out in blocks of columns, each [words][width]
// (the last one narrower): L2-sized, at most an even share per thread, or
// one block of every column where there would be fewer blocks than threads
// (threads then split the rows).
int64_t PanelWidth(int64_t block_cols, int64_t cols, int64_t threads) {
  const int64_t width =
      std::min(block_cols, RoundUp((cols + threads - 1) / threads, kQuantGemmCols));
  return (cols + width - 1) / width >= threads ? width : cols;
}

// Word i of `out` (i < count) takes value i of each lane's row: for the
// pairs two int16 (value - subtract), for the quads four bytes.
void InterleaveLanes(QuantGemmFormat format, const uint8_t* const* rows, int64_t count,
                     uint8_t subtract, int32_t* out) {
  int64_t i = 0;
  if (format == kQuantPairsInt16) {
    const uint8_t* r0 = rows[0];
    const uint8_t* r1 = rows[1];
    i = InterleavePairVectors(r0, r1, count, subtract, out);
    for (; i < count; ++i) {
      out[i] = static_cast<int32_t>(PairWord(r0[i] - subtract, r1[i] - subtract));
    }
    return;
  }
  i = InterleaveQuadVectors(rows, count, out);
  for (; i < count; ++i) {
    out[i] = static_cast<int32_t>(uint32_t{rows[0][i]} | (uint32_t{rows[1][i]} << 8) |
                                  (uint32_t{rows[2][i]} << 16) | (uint32_t{rows[3][i]} << 24));
  }
}

// sums[pos] += the four bytes of word pos, for pos < count.
void AddQuadSums(const uint8_t* words, int64_t count, int32_t* sums) {
  int64_t pos = AddQuadSumVectors(words, count, sums);
  for (; pos < count; ++pos) {
    sums[pos] += words[4 * pos] + words[4 * pos + 1] + words[4 * pos + 2] + words[4 * pos + 3];
  }
}

// dst[i] = src[i * stride] for first <= i < last, where src[(last - 1) *
// stride] is the last byte that may be read. Stride 2 (the first layer of
// MobileNets) takes the even bytes of 32 at a time.
void CopyStrided(const uint8_t* src, int64_t stride, int64_t first, int64_t last, uint8_t* dst) {
  int64_t i = stride == 2 ? CopyEvenBytesVectors(src, first, last, dst) : first;
  for (; i < last; ++i) dst[i] = src[i * stride];
}

// The time the busiest thread takes when `threads` threads run items with
// these costs through ThreadPool::ParallelFor: each thread owning a
// contiguous run of the pool's pieces (ThreadPool::PieceStarts), taking them
// from the front and then stealing from the back of the others' runs
// (thread_pool.h), every thread starting at once.
int64_t SplitMakespan(const std::vector<int64_t>& costs, int64_t threads) {
  const int64_t count = static_cast<int64_t>(costs.size());
  const int t_count = static_cast<int>(threads);
  const int64_t pieces = ThreadPool::PieceCount(count, t_count);
  std::vector<int64_t> piece_cost(pieces, 0), front(threads), back(threads), clock(threads, 0);
  std::vector<int64_t> starts(pieces + 1);
  ThreadPool::PieceStarts(count, t_count, starts.data());
  for (int64_t piece = 0; piece < pieces; ++piece) {
    for (int64_t i = starts[piece]; i < starts[piece + 1]; ++i) piece_cost[piece] += costs[i];
  }
  for (int64_t t = 0; t < threads; ++t) {
    ThreadPool::OwnedPieces(pieces, t_count, static_cast<int>(t), &front[t], &back[t]);
  }
  for (int64_t left = pieces; left > 0; --left) {
    // The thread that is free first claims its next piece.
    const int64_t t = std::min_element(clock.begin(), clock.end()) - clock.begin();
    int64_t piece = -1;
    if (front[t] < back[t]) {
      piece = front[t]++;
    } else {
      for (int64_t step = 1; step < threads && piece < 0; ++step) {
        const int64_t victim = (t + step) % threads;
        if (front[victim] < back[victim]) piece = --back[victim];
      }
    }
    clock[t] += piece_cost[piece];
  }
  return *std::max_element(clock.begin(), clock.end());
}

// A way to split a layer: a block width or a piece height, the busiest
// thread's time (SplitMakespan) and the number of items.
struct SplitCandidate {
  int64_t value, makespan, items;
};

// The quickest candidate (on a tie the last one where `later_on_tie`, else
// the first); but where some with at least ThreadPool::kPiecesPerThread
// items per thread are within 1/32 of it, the quickest of those: a thread
// can then still take over part of a slow one's share (a loaded machine, a
// slower core). `candidates` is not empty.
const SplitCandidate& PickSplit(const std::vector<SplitCandidate>& candidates, int64_t threads,
                                bool later_on_tie) {
  auto better = [&](const SplitCandidate& c, const SplitCandidate* than) {
    return than == nullptr || c.makespan < than->makespan ||
           (later_on_tie && c.makespan == than->makespan);
  };
  const SplitCandidate* quickest = nullptr;
  for (const SplitCandidate& c : candidates) {
    if (better(c, quickest)) quickest = &c;
  }
  const SplitCandidate* fine = nullptr;
  for (const SplitCandidate& c : candidates) {
    if (c.items >= ThreadPool::kPiecesPerThread * threads &&
        32 * c.makespan <= 33 * quickest->makespan && better(c, fine)) {
      fine = &c;
    }
  }
  return fine != nullptr ? *fine : *quickest;
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
  // Past the depth the row stays 0, which packs as the padding.
  std::vector<int32_t> row(conv->words_ * conv->per_word_, 0);
  const uint8_t* raw = static_cast<const uint8_t*>(filter);
  for (int64_t oc = 0; oc < params.out_channels; ++oc) {
    const uint8_t* w = raw + oc * depth;
    int64_t sum = 0;
    if (int8_filter) {
      for (int64_t k = 0; k < depth; ++k) {
        const int32_t v = static_cast<int8_t>(w[k]);
        row[k] = v - subtract;
        sum += v;
      }
    } else {
      for (int64_t k = 0; k < depth; ++k) {
        const int32_t v = w[k];
        row[k] = v - subtract;
        sum += v;
      }
    }
    conv->filter_sums_[oc] = sum - depth * int64_t{quant.filter_zero_point};
    const int64_t group = oc / out_per_group;
    int32_t* packed =
        conv->packed_filter_.data() + (group * conv->rows_ + oc % out_per_group) * conv->words_;
    if (quads) {
      for (int64_t word = 0; word < conv->words_; ++word) {
        packed[word] = static_cast<int32_t>(QuadWord(row.data() + 4 * word));
      }
    } else {
      for (int64_t word = 0; word < conv->words_; ++word) {
        packed[word] = static_cast<int32_t>(PairWord(row[2 * word], row[2 * word + 1]));
      }
    }
  }
  // The whole packed input only for the layers that pack it whole (not
  // pointwise, or with the quads' column correction); pointwise layers
  // pack each column block into a per-thread buffer, except where threads
  // split the rows (PackInput then allocates it).
  if (!conv->Pointwise() || conv->ColumnCorrection()) {
    conv->packed_input_.assign(conv->words_ * conv->cols_ * 4, 0);
  }
  conv->input_sums_.assign(conv->cols_, 0);
  conv->column_terms_.assign(conv->cols_, 0);
  conv->requantize_row_ = table.requantize_row;
  conv->gemm_requant_ = table.quantized_gemm_requant;
  if (conv->format_ == kQuantQuadsUint8) conv->quad_pack_ = table.quantized_quad_pack;
  conv->row_terms_.assign(params.group * conv->rows_, 0);
  conv->row_multipliers_.assign(params.group * conv->rows_, 0);
  conv->row_shifts_.assign(params.group * conv->rows_, 1);
  // A block's packed input and its sums (every row of the filter) both
  // stay within kColumnBlockBytes.
  const int64_t block_words = std::max(conv->words_, conv->rows_);
  conv->block_cols_ = std::min<int64_t>(
      conv->cols_,
      std::max<int64_t>(kQuantGemmCols, kColumnBlockBytes / (4 * block_words) /
                                            kQuantGemmCols * kQuantGemmCols));
  // The fused output step keeps no sums: only the packed block bounds it.
  conv->fused_block_cols_ = std::min<int64_t>(
      conv->cols_, std::max<int64_t>(kQuantGemmCols, kFusedBlockBytes / (4 * conv->words_) /
                                                         kQuantGemmCols * kQuantGemmCols));
  return conv;
}

const Conv2dUint8Gemm::Split& Conv2dUint8Gemm::ChooseSplit(int64_t threads, bool fused) {
  if (split_threads_ == threads && split_fused_ == fused) return split_;
  split_threads_ = threads;
  split_fused_ = fused;
  // Blocks of fused rows have their own bound (kFusedBlockBytes).
  const int64_t block_cols = fused ? fused_block_cols_ : block_cols_;
  split_.width = PanelWidth(block_cols, cols_, threads);
  split_.piece_rows = 3 * kQuantGemmRows;
  if (threads <= 1) return split_;
  // Threads take either column blocks (every row of each) or, where the
  // packed input fits in L2, pieces of rows (every column).
  // The even-share width of PanelWidth can leave a thread idle for a good
  // part of a small layer: 28 x 28 with 192 rows in blocks of 8, 8, 8 and
  // half a strip gives two threads 16 and 8.5 strips; 14 x 14 in blocks of
  // 4 and 3 strips, or 64 rows in 12-row pieces (36 and 28 rows), leave
  // 23 % of the busier thread's time idle on the other. So every block
  // width up to the block bound, and every piece height, is scheduled as the
  // pool would (SplitMakespan), and the split whose busiest thread finishes
  // first wins, or nearly (PickSplit); on a tie the wider blocks (fewer
  // calls) or the shorter pieces (which a thread can still take over from
  // a slow one).
  const int64_t positions = p_.out_h * p_.out_w;
  // A strip's work: half for one whose valid columns end within its first
  // 16 (the fused kernel then runs the narrow tile).
  auto strip_cost = [&](int64_t col) {
    return positions - col > kQuantGemmCols / 2 ? 2 : 1;
  };
  std::vector<int64_t> costs;
  std::vector<SplitCandidate> candidates;
  for (int64_t width = kQuantGemmCols; width <= block_cols; width += kQuantGemmCols) {
    const int64_t blocks = (cols_ + width - 1) / width;
    if (blocks < threads) continue;
    costs.assign(blocks, 0);
    for (int64_t col = 0; col < std::min(cols_, positions); col += kQuantGemmCols) {
      costs[col / width] += strip_cost(col) * rows_;
    }
    candidates.push_back({width, SplitMakespan(costs, threads), blocks});
  }
  int64_t best = -1;
  if (!candidates.empty()) {
    const SplitCandidate& chosen = PickSplit(candidates, threads, true);
    split_.width = chosen.value;
    best = chosen.makespan;
  }
  // Rows only where the whole packed input, which every thread then reads,
  // fits one L2-sized block (block_cols_ also bounds a column block's sums,
  // which the row split does not keep per thread).
  if (words_ * cols_ * 4 <= kColumnBlockBytes) {
    int64_t all_strips = 0;
    for (int64_t col = 0; col < std::min(cols_, positions); col += kQuantGemmCols) {
      all_strips += strip_cost(col);
    }
    // In sixteenths of a row: a piece whose last tile has 4 or 8 rows
    // rather than 12 costs a row more (fewer accumulators per column load).
    auto piece_cost = [&](int64_t piece) {
      return (16 * piece + (piece % (3 * kQuantGemmRows) == 0 ? 0 : 16)) * all_strips;
    };
    candidates.clear();
    for (int64_t piece = kQuantGemmRows; piece <= rows_; piece += kQuantGemmRows) {
      const int64_t pieces = (rows_ + piece - 1) / piece;
      if (pieces < threads) continue;
      costs.assign(pieces, 0);
      for (int64_t i = 0; i < pieces; ++i) costs[i] = piece_cost(std::min(piece, rows_ - i * piece));
      candidates.push_back({piece, SplitMakespan(costs, threads), pieces});
    }
    // Rows only where they beat the columns by more than 1/32 (the row
    // split packs the input before its parallel region).
    if (!candidates.empty()) {
      const SplitCandidate& chosen = PickSplit(candidates, threads, false);
      if (best < 0 || 33 * chosen.makespan < 32 * 16 * best) {
        split_.width = cols_;
        split_.piece_rows = chosen.value;
      }
    }
  }
  VLOG(3) << "uint8 gemm " << rows_ << " x " << positions << " on " << threads << " threads: "
          << (split_.width >= cols_ ? "pieces of " : "column blocks of ")
          << (split_.width >= cols_ ? split_.piece_rows : split_.width)
          << (split_.width >= cols_ ? " rows" : " columns");
  return split_;
}

bool Conv2dUint8Gemm::Pointwise() const {
  const ref::Conv2DParams& p = p_;
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
         p.pad_top == 0 && p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w;
}

void Conv2dUint8Gemm::EmitWords(int64_t width, int64_t word, int64_t pos,
                                const uint8_t* const* lanes, int64_t count, uint8_t subtract) {
  int32_t* words = reinterpret_cast<int32_t*>(packed_input_.data());
  const uint8_t* shifted[4];
  for (int64_t done = 0; done < count;) {
    const int64_t block = (pos + done) / width, offset = pos + done - block * width;
    const int64_t block_width = std::min(width, cols_ - block * width);
    const int64_t take = std::min(count - done, block_width - offset);
    for (int64_t lane = 0; lane < per_word_; ++lane) shifted[lane] = lanes[lane] + done;
    int32_t* dst = words + block * width * words_ + word * block_width + offset;
    if (quad_pack_ != nullptr) {
      // The same words (these quads subtract nothing), 16 per step.
      quad_pack_(shifted, 1, take, dst);
    } else {
      InterleaveLanes(format_, shifted, take, subtract, dst);
    }
    done += take;
  }
}

void Conv2dUint8Gemm::PackPointwiseBlock(const uint8_t* image, int64_t group, int64_t first,
                                         int64_t count, int64_t block_width, int32_t* block) {
  const ref::Conv2DParams& p = p_;
  const int64_t positions = p.out_h * p.out_w;
  const uint8_t* first_plane = image + group * (p.in_channels / p.group) * positions;
  const uint8_t subtract =
      format_ == kQuantPairsInt16 ? static_cast<uint8_t>(quant_.input_zero_point) : 0;
  // Lanes past the depth read `subtract`, which packs as 0.
  static thread_local std::vector<uint8_t> past_depth;
  const uint8_t* rows[4];
  for (int64_t word = 0; word < words_; ++word) {
    for (int64_t lane = 0; lane < per_word_; ++lane) {
      const int64_t k = word * per_word_ + lane;
      if (k < depth_) {
        rows[lane] = first_plane + k * positions + first;
        continue;
      }
      if (past_depth.size() < static_cast<size_t>(count)) past_depth.resize(count);
      std::fill(past_depth.begin(), past_depth.begin() + count, subtract);
      rows[lane] = past_depth.data();
    }
    int32_t* dst = block + word * block_width;
    if (quad_pack_ != nullptr) {
      quad_pack_(rows, 1, count, dst);
    } else {
      InterleaveLanes(format_, rows, count, subtract, dst);
    }
  }
}

// im2col of one group of one image into packed words, a word (per_word_
// consecutive k: input channels and taps) at a time: value k of column `pos`
// is lane k % per_word_ of word (k / per_word_, pos). Taps outside the input
// hold the input zero point; lanes past the depth hold `subtract`, so that
// they pack as 0. Columns past the positions were zeroed at Create and are
// never written. Threads split the words.
void Conv2dUint8Gemm::PackInput(const uint8_t* image, int64_t group, int64_t width,
                                ThreadPool* pool) {
  const ref::Conv2DParams& p = p_;
  const int64_t in_per_group = p.in_channels / p.group;
  const uint8_t zq = static_cast<uint8_t>(quant_.input_zero_point);
  const bool pairs = format_ == kQuantPairsInt16;
  // The raw value that packs as 0: the pairs subtract the zero point.
  const uint8_t subtract = pairs ? zq : 0;
  const int64_t taps = p.kernel_h * p.kernel_w;
  const int64_t positions = p.out_h * p.out_w;
  const bool pointwise = Pointwise();
  const uint8_t* first_plane = image + group * in_per_group * p.in_h * p.in_w;
  const int64_t per_word = per_word_;
  if (packed_input_.empty()) packed_input_.assign(words_ * cols_ * 4, 0);
  // Packs `count` values of each lane into word `word` of the columns from
  // `pos` on, block by block.
  auto emit = [&](int64_t word, int64_t pos, const uint8_t* const* lanes, int64_t count) {
    EmitWords(width, word, pos, lanes, count, subtract);
  };
  // A small packed input is packed by the calling thread alone: a few
  // microseconds of work, where a parallel region would cost a wake-up and
  // a wait for the other threads (much more on a loaded machine).
  ThreadPool* pack_pool = words_ * cols_ < kSerialPackWords ? nullptr : pool;
  ParallelFor(pack_pool, words_, [&](int64_t begin, int64_t end) {
    // One run of values per lane: a whole plane for the pointwise case,
    // else one output row of one tap.
    const int64_t run = pointwise ? positions : p.out_w;
    std::vector<uint8_t> scratch(per_word * run);
    const uint8_t* rows[4];
    for (int64_t word = begin; word < end; ++word) {
      if (pointwise) {
        for (int64_t lane = 0; lane < per_word; ++lane) {
          const int64_t k = word * per_word + lane;
          if (k < depth_) {
            rows[lane] = first_plane + k * positions;
          } else {
            std::fill(scratch.begin() + lane * run, scratch.begin() + (lane + 1) * run, subtract);
            rows[lane] = scratch.data() + lane * run;
          }
        }
        emit(word, 0, rows, run);
        continue;
      }
      // Each lane's input plane, row offset and column shift, computed
      // once per word rather than once per output row.
      const uint8_t* lane_plane[4];
      int64_t lane_row[4], lane_shift[4];
      for (int64_t lane = 0; lane < per_word; ++lane) {
        const int64_t k = word * per_word + lane;
        lane_plane[lane] = nullptr;
        if (k >= depth_) continue;
        const int64_t ic = k / taps, kh = (k % taps) / p.kernel_w, kw = k % p.kernel_w;
        lane_plane[lane] = first_plane + ic * p.in_h * p.in_w;
        lane_row[lane] = kh * p.dilation_h - p.pad_top;
        lane_shift[lane] = kw * p.dilation_w - p.pad_left;
      }
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        for (int64_t lane = 0; lane < per_word; ++lane) {
          uint8_t* dst = scratch.data() + lane * run;
          rows[lane] = dst;
          if (lane_plane[lane] == nullptr) {  // past the depth
            std::fill(dst, dst + run, subtract);
            continue;
          }
          const int64_t ih = oh * p.stride_h + lane_row[lane];
          if (ih < 0 || ih >= p.in_h) {
            std::fill(dst, dst + run, zq);
            continue;
          }
          const uint8_t* in_row = lane_plane[lane] + ih * p.in_w;
          const int64_t shift = lane_shift[lane];
          if (p.stride_w == 1) {
            // Inside the input for first <= ow < last.
            const int64_t first = std::min<int64_t>(std::max<int64_t>(-shift, 0), run);
            const int64_t last = std::max<int64_t>(first, std::min<int64_t>(p.in_w - shift, run));
            if (first == 0 && last == run) {
              // The whole run lies inside the input row: read it in place.
              rows[lane] = in_row + shift;
              continue;
            }
            std::fill(dst, dst + first, zq);
            if (last > first) std::copy(in_row + first + shift, in_row + last + shift, dst + first);
            std::fill(dst + last, dst + run, zq);
            continue;
          }
          // Inside the input for first <= ow < last; a plain strided copy
          // there.
          const int64_t sw = p.stride_w;
          const int64_t first =
              std::min<int64_t>(run, shift >= 0 ? 0 : (-shift + sw - 1) / sw);
          const int64_t last = std::max<int64_t>(
              first, std::min<int64_t>(run, p.in_w - shift > 0 ? (p.in_w - shift + sw - 1) / sw : 0));
          std::fill(dst, dst + first, zq);
          const uint8_t* src = in_row + shift;
          CopyStrided(src, sw, first, last, dst);
          std::fill(dst + last, dst + run, zq);
        }
        emit(word, oh * p.out_w, rows, run);
      }
    }
  });
  // The quads' correction needs each column's sum of inputs, unless it is
  // zero (int8 filters on the signed quads).
  if (pairs || !ColumnCorrection()) return;
  const uint8_t* bytes = packed_input_.data();
  std::fill(input_sums_.begin(), input_sums_.end(), 0);
  for (int64_t first = 0; first < positions; first += width) {
    const int64_t block_width = std::min(width, cols_ - first);
    const int64_t count = std::min(block_width, positions - first);
    for (int64_t word = 0; word < words_; ++word) {
      const uint8_t* column = bytes + (first * words_ + word * block_width) * 4;
      AddQuadSums(column, count, input_sums_.data() + first);
    }
  }
}

void Conv2dUint8Gemm::FinishRow(int64_t n, int64_t oc, const int32_t* sums, const int32_t* bias,
                                uint8_t* output, int64_t first, int64_t count) const {
  const int64_t positions = p_.out_h * p_.out_w;
  const int64_t input_correction = weight_offset_ - quant_.filter_zero_point;
  const QuantizedMultiplier& multiplier = quant_.multiplier(oc);
  const int64_t bias_value = bias != nullptr ? bias[oc] : 0;
  const int64_t channel_term = ChannelTerm(oc, bias);
  uint8_t* out = output + (n * p_.out_channels + oc) * positions + first;
  if (requantize_row_ != nullptr &&
      VectorRequantizeApplies(bias_value, depth_ * 255 * 255, multiplier)) {
    requantize_row_(MakeRequantizeRow(sums, ColumnCorrection() ? column_terms_.data() + first
                                                               : nullptr,
                                      channel_term, multiplier, quant_.output, count, out));
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    int64_t sum = channel_term + sums[i];
    if (ColumnCorrection()) sum += input_correction * input_sums_[first + i];
    out[i] = RequantizeToUint8(ref::quantized::SaturateToInt32(sum), multiplier, quant_.output);
  }
}

int64_t Conv2dUint8Gemm::ChannelTerm(int64_t oc, const int32_t* bias) const {
  int64_t term = bias != nullptr ? bias[oc] : 0;
  if (format_ != kQuantPairsInt16) term -= int64_t{quant_.input_zero_point} * filter_sums_[oc];
  return term;
}

void Conv2dUint8Gemm::PrepareBias(const int32_t* bias) {
  fused_groups_.resize(p_.group);
  for (int64_t group = 0; group < p_.group; ++group) {
    fused_groups_[group] = FusedRows(group, bias);
  }
  prepared_bias_ = bias;
  bias_prepared_ = true;
}

bool Conv2dUint8Gemm::FusedRows(int64_t group, const int32_t* bias) {
  if (gemm_requant_ == nullptr) return false;
  const int64_t out_per_group = p_.out_channels / p_.group;
  for (int64_t r = 0; r < out_per_group; ++r) {
    const int64_t oc = group * out_per_group + r;
    const QuantizedMultiplier& multiplier = quant_.multiplier(oc);
    if (!VectorRequantizeApplies(bias != nullptr ? bias[oc] : 0, depth_ * 255 * 255, multiplier)) {
      return false;
    }
    // Modulo 2^32, exact for the total (see RequantizeRow).
    row_terms_[group * rows_ + r] =
        static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(ChannelTerm(oc, bias))));
    row_multipliers_[group * rows_ + r] = multiplier.multiplier;
    row_shifts_[group * rows_ + r] = multiplier.right_shift;
  }
  return true;
}

void Conv2dUint8Gemm::Run(const uint8_t* input, const int32_t* bias, uint8_t* output,
                          ThreadPool* pool) {
  const ref::Conv2DParams& p = p_;
  const int64_t positions = p.out_h * p.out_w;
  const int64_t out_per_group = p.out_channels / p.group;
  const bool column_terms = ColumnCorrection();
  const int64_t input_correction = weight_offset_ - quant_.filter_zero_point;
  // Column blocks: L2-sized, and at least one per thread where the columns
  // allow it.
  const int64_t threads = NumThreads(pool);
  // Every group's rows fused, with the terms PrepareBias made for this
  // bias: the blocks may be wider.
  bool all_fused = bias_prepared_ && bias == prepared_bias_;
  for (size_t g = 0; all_fused && g < fused_groups_.size(); ++g) all_fused = fused_groups_[g];
  const Split& split = ChooseSplit(threads, all_fused);
  const int64_t width = split.width;
  const int64_t blocks = (cols_ + width - 1) / width;
  for (int64_t n = 0; n < p.batch; ++n) {
    const uint8_t* image = input + n * p.in_channels * p.in_h * p.in_w;
    for (int64_t group = 0; group < p.group; ++group) {
      // A pointwise layer whose threads take column blocks packs each
      // block into a per-thread buffer in the same parallel region, just
      // before its GEMM: one region per layer instead of two (or a packing
      // on one thread while the others wait), and on any number of threads
      // the packed block is written to and read from a buffer that stays in
      // L2 from layer to layer, where a packed input per layer (up to 451 KB
      // in MobileNet v2) was written to memory no other layer touches. The
      // quads' input sums are made over the whole input afterwards, so
      // layers that need them pack first.
      const bool pack_in_blocks = blocks >= threads && Pointwise() && !column_terms;
      if (!pack_in_blocks) PackInput(image, group, width, pool);
      if (column_terms) {
        // Wrapping int32 products: exact wherever the total fits in int32.
        for (int64_t pos = 0; pos < positions; ++pos) {
          column_terms_[pos] = static_cast<int32_t>(
              static_cast<uint32_t>(input_correction) * static_cast<uint32_t>(input_sums_[pos]));
        }
      }
      const int32_t* packed_input = reinterpret_cast<const int32_t*>(packed_input_.data());
      // The block the GEMM reads: packed now into the thread's buffer, or
      // the packed input's.
      auto block_input = [&](int64_t first_col, int64_t block_width) -> const int32_t* {
        if (!pack_in_blocks) return packed_input + first_col * words_;
        static thread_local std::vector<int32_t> block;
        if (block.size() < static_cast<size_t>(words_ * block_width)) {
          block.resize(words_ * block_width);
        }
        PackPointwiseBlock(image, group, first_col, std::min(block_width, positions - first_col),
                           block_width, block.data());
        return block.data();
      };
      const int32_t* filter = packed_filter_.data() + group * rows_ * words_;
      // The fused output step's rows of this group, from row `first` on,
      // columns [first_col, first_col + count).
      // The fused rows PrepareBias made for this bias, else made now (and
      // the prepared ones no longer valid).
      bool fused;
      if (bias_prepared_ && bias == prepared_bias_) {
        fused = fused_groups_[group];
      } else {
        bias_prepared_ = false;
        fused = FusedRows(group, bias);
      }
      auto tile = [&](int64_t first, int64_t first_col, int64_t count) {
        RequantizeTile t;
        t.row_terms = row_terms_.data() + group * rows_ + first;
        t.multipliers = row_multipliers_.data() + group * rows_ + first;
        t.right_shifts = row_shifts_.data() + group * rows_ + first;
        t.column_terms = column_terms ? column_terms_.data() + first_col : nullptr;
        t.zero_point = quant_.output.zero_point;
        t.lo = quant_.output.min;
        t.hi = quant_.output.max;
        t.valid_rows = out_per_group - first;
        t.count = count;
        t.out = output + (n * p.out_channels + group * out_per_group + first) * positions +
                first_col;
        t.out_stride = positions;
        return t;
      };
      if (blocks >= threads) {
        // Threads split the column blocks; each multiplies every row with
        // its block (contiguous: PackInput lays them out so) and finishes
        // the block's outputs while its sums are hot.
        ParallelFor(pool, blocks, [&](int64_t begin, int64_t end) {
          if (fused) {
            for (int64_t block = begin; block < end; ++block) {
              const int64_t first_col = block * width;
              const int64_t block_width = std::min(width, cols_ - first_col);
              gemm_requant_(filter, block_input(first_col, block_width), rows_, words_,
                            block_width, tile(0, first_col, std::min(block_width,
                                                                      positions - first_col)));
            }
            return;
          }
          // Per thread, kept between runs: no allocation or page faults
          // per layer.
          static thread_local std::vector<int32_t> sums;
          if (sums.size() < static_cast<size_t>(rows_ * width)) sums.resize(rows_ * width);
          for (int64_t block = begin; block < end; ++block) {
            const int64_t first_col = block * width;
            const int64_t block_width = std::min(width, cols_ - first_col);
            gemm_(filter, block_input(first_col, block_width), rows_, words_, block_width,
                  sums.data());
            const int64_t count = std::min(block_width, positions - first_col);
            for (int64_t r = 0; r < out_per_group; ++r) {
              FinishRow(n, group * out_per_group + r, sums.data() + r * block_width, bias,
                        output, first_col, count);
            }
          }
        });
        continue;
      }
      // Fewer columns than threads: they split the row tiles instead. The
      // columns are few, so their sums are small; allocated on first use.
      if (!fused && sums_.size() < static_cast<size_t>(rows_ * cols_)) {
        sums_.resize(rows_ * cols_);
      }
      // Pieces of ChooseSplit's height: three row tiles of kQuantGemmRows
      // (the 12-row tiles of the VNNI kernel) unless another height splits
      // the rows more evenly.
      const int64_t piece_rows = split.piece_rows;
      ParallelFor(pool, (rows_ + piece_rows - 1) / piece_rows, [&](int64_t begin, int64_t end) {
        const int64_t first = begin * piece_rows, last = std::min(rows_, end * piece_rows);
        if (fused) {
          if (first < out_per_group) {
            gemm_requant_(filter + first * words_, packed_input, last - first, words_, cols_,
                          tile(first, 0, positions));
          }
          return;
        }
        gemm_(filter + first * words_, packed_input, last - first, words_, cols_,
              sums_.data() + first * cols_);
        for (int64_t r = first; r < std::min(last, out_per_group); ++r) {
          FinishRow(n, group * out_per_group + r, sums_.data() + r * cols_, bias, output, 0,
                    positions);
        }
      });
    }
  }
}

}  // namespace ops
}  // namespace mace
