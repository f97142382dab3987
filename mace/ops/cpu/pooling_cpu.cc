// Pooling's CPU kernel, choosing in this order:
//   1. blocked, when the net runs the op in channel blocks;
//   2. the fast kernel (2x2 / 3x3 windows at stride 1 or 2, and global
//      pooling), when the engine's kernel family has one;
//   3. the reference kernel;
// and in an fp16 engine, on half tensors where the net keeps them
// (cpu/pooling_half.h: max pooling and global average pooling).
// With the Indices output (MAX only) it is always the indices kernel; LP
// pooling always runs the reference kernel, its planes split over threads.
#include "mace/ops/cpu/pooling_cpu.h"

#include <memory>

#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/linked_families.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/pooling_blocked.h"
#include "mace/ops/cpu/pooling_half.h"
#include "mace/ops/cpu/pooling_indices.h"
#include "mace/ops/cpu/pooling_kernel.h"
#include "mace/ops/pooling.h"

namespace mace {
namespace ops {
namespace {

class PoolingCpu final : public BlockedLayoutOp<PoolingBase>, public BlockedPoolingReader {
 public:
  bool BlockedWindowPooling(ref::PoolingParams* params) const override {
    if (BlockedBlock() == 0 || global() || Output(0)->channel_block() == 0 ||
        (this->params().type != ref::PoolingType::MAX &&
         this->params().type != ref::PoolingType::AVG)) {
      return false;
    }
    *params = this->params();
    return true;
  }

  MaceStatus Prepare(OpContext* context) override {
    kernels_ = ContextKernelTable(context);
    fast_.reset();
    blocked_.reset();
    indices_.reset();
    half_.reset();
    MACE_RETURN_IF_ERROR(InferShapes());
    // Prepared again (new shapes) after the net chose halves.
    if (Input(0)->dtype() == DT_HALF) return UseHalf(context);
    if (with_indices()) {
      indices_ = std::make_unique<MaxPoolingIndicesKernel>(params(), column_major());
      return MaceStatus();
    }
    if (lp()) return MaceStatus();
    const KernelTable* table = kernels_;
    if (table != nullptr && PoolingKernel::Supports(*table, params())) {
      fast_ = std::make_unique<PoolingKernel>(*table, params());
      return scratch_.Reserve(context, fast_->ScratchBytes(NumThreads(ContextPool(context))));
    }
    return MaceStatus();
  }

  int BlockedBlock() const override {
    if (!kLinksBlockedKernels) return 0;
    const KernelTable* table = kernels_;
    const int block = BlockedLayoutBlock(table);
    if (block == 0 || with_indices() || lp() ||
        !BlockedPooling::Supports(*table, params(), global())) {
      return 0;
    }
    return block;
  }

  MaceStatus UseBlocked(OpContext* /*context*/) override {
    OP_CHECK(kLinksBlockedKernels, "this library has no blocked kernels");
    blocked_ = std::make_unique<BlockedPooling>(*kernels_, params(), global());
    return MaceStatus();
  }

  // In an fp16 engine: max pooling and global average pooling of an
  // activation (cpu/pooling_half.h).
  bool HalfCapable() const override {
    const KernelTable* table = kernels_;
    return kLinksFp16Kernels && table != nullptr && table->fp16_gemm != nullptr &&
           !with_indices() && !lp() && Input(0)->dtype() == DT_FLOAT && !Input(0)->is_weight() &&
           HalfPooling::Supports(*table, params());
  }
  MaceStatus UseHalf(OpContext* context) override {
    OP_CHECK(kLinksFp16Kernels && kernels_ != nullptr && HalfPooling::Supports(*kernels_, params()),
             "no half-precision pooling for these shapes");
    fast_.reset();
    half_ = std::make_unique<HalfPooling>(*kernels_, params());
    return scratch_.Reserve(context, half_->ScratchBytes(NumThreads(ContextPool(context))));
  }

  MaceStatus Run(OpContext* context) override {
    if (indices_ != nullptr) {
      indices_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(),
                    Output(1)->mutable_data<int32_t>(), ContextPool(context));
      return MaceStatus();
    }
    if (kLinksFp16Kernels && half_ != nullptr) {
      half_->Run(Input(0)->data<uint16_t>(), Output(0)->mutable_data<uint16_t>(),
                 ContextPool(context), scratch_.Get(context));
      return MaceStatus();
    }
    if (kLinksBlockedKernels && blocked_ != nullptr) {
      blocked_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(),
                    ContextPool(context));
      return MaceStatus();
    }
    if (fast_ != nullptr) {
      fast_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(), ContextPool(context),
                 scratch_.Get(context));
      return MaceStatus();
    }
    if (lp()) {
      RunByPlanes(Input(0)->data<float>(), Output(0)->mutable_data<float>(), ContextPool(context));
      return MaceStatus();
    }
    ref::Pooling(params(), Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  bool lp() const { return params().type == ref::PoolingType::LP; }

  // The reference kernel on ranges of (batch, channel) planes, in parallel.
  void RunByPlanes(const float* input, float* output, ThreadPool* pool) const {
    const ref::PoolingParams& p = params();
    const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
    ParallelFor(pool, p.batch * p.channels, [&](int64_t begin, int64_t end) {
      ref::PoolingParams part = p;
      part.batch = 1;
      part.channels = end - begin;
      ref::Pooling(part, input + begin * in_plane, output + begin * out_plane);
    });
  }

  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;
  std::unique_ptr<PoolingKernel> fast_;
  std::unique_ptr<BlockedPooling> blocked_;
  std::unique_ptr<MaxPoolingIndicesKernel> indices_;  // with the Indices output
  std::unique_ptr<HalfPooling> half_;                 // UseHalf: half tensors
  OpScratch scratch_;
};

}  // namespace

std::unique_ptr<Operation> NewPoolingCpu() { return std::make_unique<PoolingCpu>(); }

const BlockedPoolingReader& PoolingCpuReader(const Operation& pooling) {
  return static_cast<const PoolingCpu&>(pooling);
}

}  // namespace ops
}  // namespace mace
