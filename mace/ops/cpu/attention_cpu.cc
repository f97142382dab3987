// Attention's CPU kernel. K and V of each head are packed into GEMM panels
// once, then the work is split into (batch, head, block of query rows)
// pieces over the thread pool, so only one block of scores per thread
// ([rows, Sk], about kBlockFloats) is ever held. Each piece runs
//   scores = (scale Q_block) K^T    on the packed GEMM (gemm.h),
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
// takes them as they are, and is divided by the sums after.
// The softmax is thus normalized after the product: the exponentials go
// straight into the second GEMM's panels, and no pass over the scores
// writes them back (the packer: cpu/attention_exp_panels.h). Row maxima
// and exponentials (and fake quantization) are the transformer family's
// (transformer_kernels.h).
// Without a kernel family (MACE_CPU_KERNELS=ref) the reference kernel
// runs.
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
    block_rows_ = BlockRows(p.q_len, p.kv_len);
    const int64_t rows = block_rows_;
    // The scratch a product with a packed B needs depends only on the
    // panels' width (a one-row product may take the vector path).
    const float zero = 0.f;
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
    packed_k_.resize(p.batch * p.heads);
    packed_v_.resize(p.batch * p.heads);
    return scratch_.Reserve(context, NumThreads(ContextPool(context)) * thread_floats_ * 4);
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
    // K and V of every head packed once, for all of its row blocks.
    ThreadPool* pool = ContextPool(context);
    ParallelFor(pool, p.batch * p.heads, [&](int64_t begin, int64_t end) {
      for (int64_t head = begin; head < end; ++head) {
        const int64_t b = head / p.heads, h = head % p.heads;
        packed_k_[head].Pack(k + b * p.k.batch + h * p.k.head, p.kv_len, p.depth, p.k.row,
                             p.k.column, table_->nr);
        packed_v_[head].Pack(v + b * p.v.batch + h * p.v.head, p.v_depth, p.kv_len, p.v.column,
                             p.v.row, table_->nr);
      }
    });
    const int64_t blocks = (p.q_len + block_rows_ - 1) / block_rows_;
    float* scratch = scratch_.Get(context);
    ParallelFor(pool, p.batch * p.heads * blocks, [&](int64_t begin, int64_t end, int chunk) {
      float* own = scratch + chunk * thread_floats_;
      for (int64_t piece = begin; piece < end; ++piece) {
        const int64_t head = piece / blocks;
        RunBlock(head / p.heads, head % p.heads, (piece % blocks) * block_rows_, q, mask, out, own);
      }
    });
    return MaceStatus();
  }

 private:
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
