// Attention's CPU kernel. K and V of each head are packed into GEMM panels
// once, then the work is split into (batch, head, block of query rows)
// pieces over the thread pool, so only one block of scores per thread is
// ever held.
//
// A float attention whose mask (if any) depends only on the key works on
// the scores transposed, a block of nr queries (one B panel) at a time:
//   S^T = K Q_block^T          on the packed GEMM (gemm.h), K as A panels,
//                              into an Sk x nr buffer, which is the layout
//                              of one B panel of Sk x nr;
//   scale, mask, column maxima one pass down the keys, a vector of
//                              queries at a time;
//   P^T = e^(S^T - max)        in place, with the columns' sums;
//   out_block^T = V^T P^T      on the GEMM, V^T as A panels and the buffer
//                              read in place as the packed B;
//   out_block = out_block^T / sums, transposed into the output.
// No pass reduces across vector lanes and the probabilities are never
// copied into panels.
//
// Otherwise (a mask that differs from query to query, or fake quantization)
// it works on rows of scores, blocks of 32 to 256 query rows:
//   scores = (scale Q_block) K^T    on the packed GEMM,
//   the mask, row by row, and each row's maximum,
//   out_block = e^(scores - max) V  on the GEMM, its A packed by a packer
//                                   that computes the exponentials (and
//                                   their row sums) a reduction block at
//                                   a time,
//   out_block /= row sums,
// reading Q, K, V and writing the output through their layouts' strides.
// Fake quantization of the scores runs on the block after the mask; with
// fake-quantized probabilities the block's exponentials are quantized
// with each row's step times its sum before the second product, which
// takes them as they are, and is divided by the sums after (the packer:
// cpu/attention_exp_panels.h).
//
// The element-wise passes are the transformer family's
// (transformer_kernels.h). Without a kernel family (MACE_CPU_KERNELS=ref)
// the reference kernel runs.
#include "mace/ops/cpu/attention_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "mace/ops/attention.h"
#include "mace/ops/cpu/attention_exp_panels.h"
#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/transformer_kernels.h"

namespace mace {
namespace ops {
namespace {

// A block holds about this many scores (64 KiB), in 32 to 256 query rows,
// a multiple of 8: long sequences take 32 rows at a time, short ones whole
// heads, so that the GEMM calls per block stay few.
constexpr int64_t kBlockFloats = 16384;
constexpr int64_t kMinBlockRows = 32, kMaxBlockRows = 256;

int64_t BlockRows(int64_t q_len, int64_t kv_len) {
  const int64_t rows = std::clamp(kBlockFloats / kv_len / 8 * 8, kMinBlockRows, kMaxBlockRows);
  return std::min(rows, q_len);
}

class AttentionCpu final : public AttentionBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    table_ = ContextKernelTable(context);
    const CpuRuntime* cpu = ContextCpu(context);
    const TransformerKernels* kernels =
        EngineTransformerKernels(cpu != nullptr ? cpu->kernel_isa() : ActiveKernelIsa());
    row_max_ = kernels != nullptr ? kernels->row_max : nullptr;
    exp_shifted_ = kernels != nullptr ? kernels->exp_shifted : nullptr;
    fake_quantize_ = kernels != nullptr ? kernels->fake_quantize : nullptr;
    if (table_ == nullptr || row_max_ == nullptr || exp_shifted_ == nullptr ||
        fake_quantize_ == nullptr) {
      table_ = nullptr;
      return MaceStatus();
    }
    const ref::AttentionParams& p = params();
    packed_k_.resize(p.batch * p.heads);
    packed_v_.resize(p.batch * p.heads);
    const int threads = NumThreads(ContextPool(context));
    columns_scale_max_ = kernels->columns_scale_max;
    columns_exp_ = kernels->columns_exp;
    columns_ = !p.scores_quant.on && !p.probs_quant.on && columns_scale_max_ != nullptr &&
               columns_exp_ != nullptr &&
               (p.mask_kind == ref::AttentionMask::NONE || p.mask.row == 0 || p.q_len == 1);
    // The scratch a product with a packed operand needs depends only on
    // the panels' width (a one-row product may take the vector path).
    const float zero = 0.f;
    if (columns_) {
      const int64_t nr = table_->nr;
      PackedPanels probe_a, probe_b;
      probe_a.Pack(&zero, 1, 1, 1, 1, table_->mr);
      probe_b.Pack(&zero, 1, 1, 1, 1, table_->nr);
      GemmOperand packed_a, packed_b;
      packed_a.packed = &probe_a;
      packed_b.packed = &probe_b;
      // A block of one query makes the first product one with a vector.
      const int64_t gemm = std::max(
          {GemmScratchFloatsPerThread(*table_, p.kv_len, nr, p.depth, packed_a, GemmOperand()),
           GemmScratchFloatsPerThread(*table_, p.kv_len, 1, p.depth, packed_a, GemmOperand()),
           GemmScratchFloatsPerThread(*table_, p.v_depth, nr, p.kv_len, packed_a, packed_b)});
      // Transposed scores, transposed output, maxima, sums, a per-key
      // mask (floats and bytes).
      thread_floats_ =
          gemm + p.kv_len * nr + p.v_depth * nr + 2 * nr + p.kv_len + (p.kv_len + 3) / 4;
      return scratch_.Reserve(context, threads * thread_floats_ * 4);
    }
    block_rows_ = BlockRows(p.q_len, p.kv_len);
    const int64_t rows = block_rows_;
    PackedPanels probe;
    probe.Pack(&zero, 1, 1, 1, 1, table_->nr);
    GemmOperand packed;
    packed.packed = &probe;
    const int64_t gemm = std::max(
        GemmScratchFloatsPerThread(*table_, rows, p.kv_len, p.depth, GemmOperand(), packed),
        GemmScratchFloatsPerThread(*table_, rows, p.v_depth, p.kv_len, GemmOperand(), packed));
    // The exponentials' reduction blocks, as the second GEMM cuts Sk.
    exp_depth_ = GemmReductionDepth(*table_, p.kv_len);
    exp_blocks_ = (p.kv_len + exp_depth_ - 1) / exp_depth_;
    exp_floats_ = std::max(rows * exp_depth_, p.kv_len);
    // Fake-quantized probabilities are held whole: a block's rows x Sk.
    probs_floats_ = p.probs_quant.on ? rows * p.kv_len : 0;
    thread_floats_ = gemm + rows * p.kv_len + rows * p.depth + exp_floats_ +
                     rows * (2 + exp_blocks_) + probs_floats_;
    return scratch_.Reserve(context, threads * thread_floats_ * 4);
  }

  MaceStatus Run(OpContext* context) override {
    const ref::AttentionParams& p = params();
    const float* q = input_data(0);
    const float* k = input_data(1);
    const float* v = input_data(2);
    const float* mask = mask_data();
    float* out = Output(0)->mutable_data<float>();
    if (table_ == nullptr) {
      ref::Attention(p, q, k, v, mask, out);
      return MaceStatus();
    }
    // K and V of every head packed once, for all of its query blocks: as
    // A panels (K, and V^T) on the transposed path, else as B panels.
    ThreadPool* pool = ContextPool(context);
    const int width = columns_ ? table_->mr : table_->nr;
    ParallelFor(pool, p.batch * p.heads, [&](int64_t begin, int64_t end) {
      for (int64_t head = begin; head < end; ++head) {
        const int64_t b = head / p.heads, h = head % p.heads;
        packed_k_[head].Pack(k + b * p.k.batch + h * p.k.head, p.kv_len, p.depth, p.k.row,
                             p.k.column, width);
        packed_v_[head].Pack(v + b * p.v.batch + h * p.v.head, p.v_depth, p.kv_len, p.v.column,
                             p.v.row, width);
      }
    });
    const int64_t block_rows = columns_ ? table_->nr : block_rows_;
    const int64_t blocks = (p.q_len + block_rows - 1) / block_rows;
    float* scratch = scratch_.Get(context);
    ParallelFor(pool, p.batch * p.heads * blocks, [&](int64_t begin, int64_t end, int chunk) {
      float* own = scratch + chunk * thread_floats_;
      for (int64_t piece = begin; piece < end; ++piece) {
        const int64_t head = piece / blocks, row0 = (piece % blocks) * block_rows;
        if (columns_) {
          RunColumnBlock(head / p.heads, head % p.heads, row0, q, mask, out, own);
        } else {
          RunBlock(head / p.heads, head % p.heads, row0, q, mask, out, own);
        }
      }
    });
    return MaceStatus();
  }

 private:
  // Query rows [row0, row0 + nr) of head h of batch b, on the scores
  // transposed.
  void RunColumnBlock(int64_t b, int64_t h, int64_t row0, const float* q, const float* mask,
                      float* out, float* scratch) const {
    const ref::AttentionParams& p = params();
    const int64_t nr = table_->nr;
    const int64_t rows = std::min(nr, p.q_len - row0);
    const int64_t n = p.kv_len;
    float* scores = scratch;         // [Sk, nr]
    float* out_t = scores + n * nr;  // [Dv, nr]
    float* shift = out_t + p.v_depth * nr;
    float* sums = shift + nr;
    float* key_add = sums + nr;
    uint8_t* key_keep = reinterpret_cast<uint8_t*>(key_add + n);
    float* gemm_scratch = key_add + n + (n + 3) / 4;
    const int64_t head = b * p.heads + h;
    GemmOperand ka, qb;
    ka.packed = &packed_k_[head];
    qb.data = q + b * p.q.batch + h * p.q.head + row0 * p.q.row;
    qb.stride = p.q.row;
    qb.depth_stride = p.q.column;
    Gemm(*table_, n, rows, p.depth, ka, qb, scores, nr, TileEpilogue(), nullptr, gemm_scratch);
    // The columns past the last query: zeros, whose exponentials are
    // finite and read by the second product into columns nobody copies.
    if (rows < nr) {
      for (int64_t k = 0; k < n; ++k) std::fill(scores + k * nr + rows, scores + (k + 1) * nr, 0.f);
    }
    // The mask as one value per key: added, or a key kept or not.
    const float* add = nullptr;
    const uint8_t* keep = nullptr;
    if (p.mask_kind != ref::AttentionMask::NONE) {
      const float* m = mask + b * p.mask.batch + h * p.mask.head;
      const int64_t step = p.mask.column;
      if (p.mask_kind == ref::AttentionMask::ADD) {
        if (step == 1) {
          add = m;
        } else {
          for (int64_t k = 0; k < n; ++k) key_add[k] = m[k * step];
          add = key_add;
        }
      } else {
        const bool nonzero = p.mask_kind == ref::AttentionMask::KEEP_NONZERO;
        for (int64_t k = 0; k < n; ++k) key_keep[k] = (m[k * step] != 0.f) == nonzero;
        keep = key_keep;
      }
    }
    columns_scale_max_(scores, n, nr, p.scale, add, keep, p.fill, shift);
    // A column with no score above -inf (every key masked) is shifted by
    // 0: its exponentials and sum are 0, and its output a zero row.
    const float none = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < nr; ++i) shift[i] = shift[i] > none ? shift[i] : 0.f;
    columns_exp_(scores, n, nr, shift, sums);
    PackedPanels probs;
    probs.View(scores, nr, n, static_cast<int>(nr));
    GemmOperand va, pb;
    va.packed = &packed_v_[head];
    pb.packed = &probs;
    Gemm(*table_, p.v_depth, rows, n, va, pb, out_t, nr, TileEpilogue(), nullptr, gemm_scratch);
    float* out_rows = out + b * p.out.batch + h * p.out.head + row0 * p.out.row;
    const int64_t v_depth = p.v_depth, out_row = p.out.row, out_column = p.out.column;
    for (int64_t i = 0; i < rows; ++i) {
      // A zero sum (a fully masked row) leaves the zero row; a NaN makes
      // the row NaN, as the softmax would.
      const float inverse = sums[i] == 0.f ? 0.f : static_cast<float>(1.0 / sums[i]);
      float* row = out_rows + i * out_row;
      const float* column = out_t + i;
      for (int64_t d = 0; d < v_depth; ++d) row[d * out_column] = column[d * nr] * inverse;
    }
  }

  // Query rows [row0, row0 + block_rows_) of head h of batch b.
  void RunBlock(int64_t b, int64_t h, int64_t row0, const float* q, const float* mask, float* out,
                float* scratch) const {
    const ref::AttentionParams& p = params();
    const int64_t rows = std::min(block_rows_, p.q_len - row0);
    const int64_t n = p.kv_len;
    float* scores = scratch;
    float* scaled_q = scores + block_rows_ * n;
    float* exps = scaled_q + block_rows_ * p.depth;
    float* shift = exps + exp_floats_;
    float* row_sums = shift + block_rows_;
    float* sums = row_sums + block_rows_;
    float* probs = sums + block_rows_ * exp_blocks_;
    float* gemm_scratch = probs + probs_floats_;
    // The scale goes into the block's rows x depth queries rather than its
    // rows x Sk scores.
    // Locals, so that the loops neither reload them per value nor miss
    // the vectorizable case of adjacent columns.
    const float* q_rows = q + b * p.q.batch + h * p.q.head + row0 * p.q.row;
    const int64_t depth = p.depth, q_row = p.q.row, q_column = p.q.column;
    const float scale = p.scale;
    for (int64_t i = 0; i < rows; ++i) {
      const float* in = q_rows + i * q_row;
      float* scaled = scaled_q + i * depth;
      if (q_column == 1) {
        for (int64_t d = 0; d < depth; ++d) scaled[d] = in[d] * scale;
      } else {
        for (int64_t d = 0; d < depth; ++d) scaled[d] = in[d * q_column] * scale;
      }
    }
    GemmOperand qa, kb;
    qa.data = scaled_q;
    qa.stride = p.depth;
    qa.depth_stride = 1;
    kb.packed = &packed_k_[b * p.heads + h];
    Gemm(*table_, rows, n, p.depth, qa, kb, scores, n, TileEpilogue(), nullptr, gemm_scratch);
    // The next block's queries (its rows are a whole hidden state apart,
    // which the hardware prefetcher does not follow), to arrive while this
    // block's exponentials and second product run.
    if (q_column == 1) {
      const int64_t next_rows = std::min(block_rows_, p.q_len - row0 - rows);
      constexpr int64_t kLineFloats = 16;
      for (int64_t i = 0; i < next_rows; ++i) {
        const float* in = q_rows + (rows + i) * q_row;
        for (int64_t d = 0; d < depth; d += kLineFloats) __builtin_prefetch(in + d, 0, 3);
      }
    }
    if (p.mask_kind != ref::AttentionMask::NONE) {
      for (int64_t i = 0; i < rows; ++i) {
        ApplyMask(scores + i * n,
                  mask + b * p.mask.batch + h * p.mask.head + (row0 + i) * p.mask.row, n);
      }
    }
    if (p.scores_quant.on) FakeQuantize(p.scores_quant, scores, rows * n);
    row_max_(scores, rows, n, n, shift);
    // A row with no score above -inf (every position masked) is shifted
    // by 0: its exponentials and sum are 0, and its output a zero row.
    const float none = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < rows; ++i) shift[i] = shift[i] > none ? shift[i] : 0.f;
    float* out_rows = out + b * p.out.batch + h * p.out.head + row0 * p.out.row;
    GemmOperand pa, vb;
    vb.packed = &packed_v_[b * p.heads + h];
    if (p.probs_quant.on) {
      // Each probability e / sum is quantized with step `scale`: e is
      // quantized with step scale * sum (the same integer but for the
      // rounding of the quotient), which gives the quantized probability
      // times sum; the product with V is divided by the sum after.
      const ref::AttentionFakeQuant& fq = p.probs_quant;
      exp_shifted_(scores, rows, n, n, shift, probs, n, row_sums);
      for (int64_t i = 0; i < rows; ++i) {
        float* row = probs + i * n;
        const float step = fq.scale * row_sums[i];
        if (row_sums[i] > 0.f && std::isfinite(step)) {
          fake_quantize_(row, n, step, fq.low - fq.zero_point, fq.high - fq.zero_point, row);
        } else {
          // A fully masked row (sum 0) or one with a NaN: its probabilities
          // are 0 or NaN, which quantize to 0.
          std::fill(row, row + n, 0.f);
          row_sums[i] = 0.f;
        }
      }
      pa.data = probs;
      pa.stride = n;
      pa.depth_stride = 1;
      Gemm(*table_, rows, p.v_depth, n, pa, vb, out_rows, p.out.row, TileEpilogue(), nullptr,
           gemm_scratch);
      for (int64_t i = 0; i < rows; ++i) {
        // A row of zeros above has a zero sum.
        const float inverse = row_sums[i] == 0.f ? 0.f : static_cast<float>(1.0 / row_sums[i]);
        float* row = out_rows + i * p.out.row;
        for (int64_t d = 0; d < p.v_depth; ++d) row[d] *= inverse;
      }
      return;
    }
    std::fill(sums, sums + rows * exp_blocks_, 0.f);
    bool mismatch = false;
    ExpPanels panels;
    panels.exp = exp_shifted_;
    panels.scores = scores;
    panels.stride = n;
    panels.depth = exp_depth_;
    panels.blocks = exp_blocks_;
    panels.shift = shift;
    panels.buffer = exps;
    panels.capacity = exp_floats_;
    panels.row_sums = row_sums;
    panels.sums = sums;
    panels.mismatch = &mismatch;
    pa.packer = PackExpPanels;
    pa.packer_context = &panels;
    Gemm(*table_, rows, p.v_depth, n, pa, vb, out_rows, p.out.row, TileEpilogue(), nullptr,
         gemm_scratch);
    for (int64_t i = 0; i < rows; ++i) {
      double total = 0.0;
      if (mismatch) {
        exp_shifted_(scores + i * n, 1, n, n, shift + i, exps, n, row_sums);
        total = row_sums[0];
      } else {
        for (int64_t j = 0; j < exp_blocks_; ++j) total += sums[i * exp_blocks_ + j];
      }
      // A zero sum (a fully masked row) leaves the zero row; a NaN makes
      // the row NaN, as the softmax would.
      const float inverse = total == 0.0 ? 0.f : static_cast<float>(1.0 / total);
      float* row = out_rows + i * p.out.row;  // columns adjacent, as Gemm writes them
      for (int64_t d = 0; d < p.v_depth; ++d) row[d] *= inverse;
    }
  }

  // `count` values fake-quantized in place.
  void FakeQuantize(const ref::AttentionFakeQuant& fq, float* values, int64_t count) const {
    fake_quantize_(values, count, fq.scale, fq.low - fq.zero_point, fq.high - fq.zero_point,
                   values);
  }

  // The mask row `m` (mask columns p.mask.column apart) applied to the
  // already scaled scores s.
  void ApplyMask(float* s, const float* m, int64_t n) const {
    const ref::AttentionParams& p = params();
    const int64_t step = p.mask.column;
    switch (p.mask_kind) {
      case ref::AttentionMask::NONE:
        break;
      case ref::AttentionMask::ADD:
        for (int64_t j = 0; j < n; ++j) s[j] += m[j * step];
        break;
      case ref::AttentionMask::KEEP_NONZERO:
        for (int64_t j = 0; j < n; ++j) s[j] = m[j * step] != 0.f ? s[j] : p.fill;
        break;
      case ref::AttentionMask::KEEP_ZERO:
        for (int64_t j = 0; j < n; ++j) s[j] = m[j * step] == 0.f ? s[j] : p.fill;
        break;
    }
  }

  const KernelTable* table_ = nullptr;  // null: reference kernel
  RowMaxKernel row_max_ = nullptr;
  ExpShiftedKernel exp_shifted_ = nullptr;
  FakeQuantizeKernel fake_quantize_ = nullptr;
  ColumnsScaleMaxKernel columns_scale_max_ = nullptr;
  ColumnsExpKernel columns_exp_ = nullptr;
  bool columns_ = false;  // the transposed path
  int64_t block_rows_ = 1;
  int64_t exp_depth_ = 1, exp_blocks_ = 1, exp_floats_ = 0;
  int64_t probs_floats_ = 0;
  int64_t thread_floats_ = 0;
  OpScratch scratch_;
  // K and V of each (batch, head), packed in Run.
  std::vector<PackedPanels> packed_k_, packed_v_;
};

}  // namespace

std::unique_ptr<Operation> NewAttentionCpu() { return std::make_unique<AttentionCpu>(); }

}  // namespace ops
}  // namespace mace
