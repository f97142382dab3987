// Conv2D's CPU kernel, and the one place that chooses among its kernels, in
// this order:
//   1. blocked Winograd, when the net runs the op in channel blocks and the
//      converter allowed Winograd for a 3x3 stride-1 conv that pays for it;
//   2. blocked direct, for any other ungrouped window run in blocks;
//   3. plain: the fast kernels of cpu/conv_2d_kernel.h (CreateConv2dKernel
//      picks rows, Winograd, direct or GEMM for the shape), on half tensors
//      (RunHalf) where the net keeps this op's tensors in half precision;
//   4. the reference convolution, where the engine's kernel family has none.
// Run blocked on a plain input (a stem), it may also compute the windowed
// pooling that alone reads its output (AbsorbReader), by bands of rows; a
// blocked 1x1 on a blocked input may compute the fused depthwise and 1x1
// pair that alone reads its output (an inverted residual block's
// expansion), by bands of rows too.
// Prepare packs the filter for the plain kernel unless the net is still to
// choose the layout (BlockedBlock offers blocks); UseStorage then settles it.
// A filter computed at run time (not a weight) only runs plain: Prepare
// chooses the kernel on a zero filter, which sizes its scratch, and every
// Run builds it again on the filter of that run, packing into an arena of
// the op's own that is reused from run to run.
#include "mace/ops/cpu/conv_2d_cpu.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "mace/ops/conv_2d.h"
#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/conv_2d_blocked.h"
#include "mace/ops/cpu/conv_2d_blocked_winograd.h"
#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_pool_blocked.h"
#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/utils/logging.h"

namespace mace {
namespace ops {
namespace {

class Conv2DCpu final : public BlockedLayoutOp<Conv2DBase>, public BlockedPointwiseReader {
 public:
  bool BlockedConvolution(ref::Conv2DParams* params, const float** filter,
                          const float** bias) const override {
    // An op that absorbed its own reader writes that reader's output.
    if (absorbed_ || BlockedBlock() == 0 || BlockedWinogradTile() != 0 ||
        Output(0)->channel_block() == 0) {
      return false;
    }
    const Tensor* b = Bias();
    *params = this->params();
    *filter = Input(1)->data<float>();
    *bias = b != nullptr ? b->data<float>() : nullptr;
    return true;
  }

  MaceStatus Prepare(OpContext* context) override {
    // Output 0 is the absorbed pooling's output now; the net never prepares
    // a fused op again (only nets of fixed shapes run blocked).
    if (absorbed_) return Invalid("prepared again after absorbing its reader");
    kernels_ = ContextKernelTable(context);
    MACE_RETURN_IF_ERROR(InferShapes());
    blocked_.reset();
    blocked_winograd_.reset();
    half_ = false;
    // The net may run this op blocked: the plain kernel waits for
    // UsePlain, so that the filter is not packed twice.
    plain_pending_ = context != nullptr && context->storage_choice_pending && BlockedBlock() > 0;
    if (plain_pending_) return MaceStatus();
    return PrepareFastKernel(context);
  }

  // Every ungrouped convolution can run blocked: a 3x3 stride-1 one the
  // converter allows Winograd for by BlockedWinograd where that pays (it
  // needs a blocked input), any other window directly (reading rows of a
  // zero-padded copy of the input). Blocked Winograd and 1x1 convolutions
  // are faster blocked on their own: the transforms need no shuffles, and a
  // 1x1 reads its input in place where the plain GEMM packs it. So are
  // shallow ones such as a network's stem, which take the plain input as it
  // is. Other windows run about as fast as im2col and only join a blocked
  // run.
  int BlockedBlock() const override {
    const KernelTable* table = kernels_;
    const int block = BlockedLayoutBlock(table);
    const Tensor* bias = Bias();
    if (block == 0 || !Input(1)->is_weight() || (bias != nullptr && !bias->is_weight())) return 0;
    if (BlockedWinogradTile() != 0) return block;
    if (!BlockedConv2d::Supports(*table, params())) return 0;
    if ((winograd() == 2 || winograd() == 4 || winograd() == 6) &&
        Conv2dWinograd::PickTile(*table, params(), winograd()) != 0) {
      return 0;
    }
    return block;
  }
  bool PrefersBlocked() const override {
    const bool pointwise = params().kernel_h == 1 && params().kernel_w == 1 &&
                           params().stride_h == 1 && params().stride_w == 1 &&
                           params().pad_top == 0 && params().pad_left == 0 &&
                           params().out_h == params().in_h && params().out_w == params().in_w;
    return pointwise || params().in_channels <= 4 || BlockedWinogradTile() != 0;
  }
  bool ReadsDefaultInput(int index) const override {
    return index == 0 && BlockedWinogradTile() == 0 && !HalfCapable();
  }

  // In an fp16 engine, 1x1 convolutions and 3x3 depthwise ones whose kernel
  // reads and writes halves (constant filter and bias).
  bool HalfCapable() const override {
    const Tensor* bias = Bias();
    return fast_ != nullptr && !computed_filter_ && fast_->SupportsHalf() &&
           Input(1)->is_weight() && (bias == nullptr || bias->is_weight());
  }
  MaceStatus UseHalf(OpContext* /*context*/) override {
    half_ = true;
    return MaceStatus();
  }

  // A blocked windowed pooling over the whole output of this convolution
  // run blocked on a plain input (a stem), when BlockedConvPool takes the
  // pair: the stem's output is then never written whole.
  bool AbsorbReader(const Operation& reader) override {
    const auto* pair = dynamic_cast<const BlockedDepthwisePointwiseReader*>(&reader);
    if (pair != nullptr) return AbsorbDepthwisePair(*pair, reader);
    const auto* pooling = dynamic_cast<const BlockedPoolingReader*>(&reader);
    if (pooling == nullptr || absorbed_ || !ConvPoolingFusionEnabled() || kernels_ == nullptr ||
        BlockedBlock() == 0 || BlockedWinogradTile() != 0 || Output(0)->channel_block() == 0 ||
        Input(0)->channel_block() != 0 || reader.Input(0) != Output(0) ||
        !ConvPoolingFusionPays(params(), kernels_->channel_block) ||
        !pooling->BlockedWindowPooling(&pooling_)) {
      return false;
    }
    // A probe of the kernel this op would build (a stem's filter is small).
    const BlockedConv2d probe(*kernels_, params(), Input(1)->data<float>(), nullptr,
                              /*blocked_input=*/false);
    if (!BlockedConvPool::Supports(*kernels_, probe, pooling_)) return false;
    absorbed_ = true;
    return true;
  }

  int64_t Macs() const override { return Conv2DBase::Macs() + absorbed_macs_; }

  MaceStatus UseBlocked(OpContext* context) override {
    const Tensor* bias = Bias();
    const float* bias_data = bias != nullptr ? bias->data<float>() : nullptr;
    const KernelTable& table = *kernels_;
    blocked_.reset();
    blocked_winograd_.reset();
    fused_.reset();
    block_.reset();
    plain_pending_ = false;
    if (pair_ != nullptr) {
      const ExpandedPair& p = *pair_;
      block_ = std::make_unique<BlockedDepthwisePointwise>(
          table, p.depthwise, p.depthwise_filter, p.depthwise_bias, p.pointwise,
          p.pointwise_filter, p.pointwise_bias, ContextArena(context), &params(),
          Input(1)->data<float>(), bias_data);
      VLOG(2) << Describe() << ": blocked, depthwise and 1x1 fused, " << table.channel_block
              << " lanes";
      return scratch_.Reserve(context, block_->ScratchBytes(NumThreads(ContextPool(context))));
    }
    if (absorbed_) {
      fused_ = std::make_unique<BlockedConvPool>(
          table,
          std::make_unique<BlockedConv2d>(table, params(), Input(1)->data<float>(), bias_data,
                                          /*blocked_input=*/false, ContextArena(context),
                                          ContextPool(context)),
          pooling_);
      VLOG(2) << Describe() << ": blocked, pooling fused, " << table.channel_block << " lanes";
      return scratch_.Reserve(context, fused_->ScratchBytes(NumThreads(ContextPool(context))));
    }
    const int tile = BlockedWinogradTile();
    if (tile != 0) {
      OP_CHECK(Input(0)->channel_block() > 0, "blocked Winograd needs a blocked input");
      blocked_winograd_ = std::make_unique<BlockedWinograd>(
          table, params(), Input(1)->data<float>(), bias_data, tile, ContextArena(context),
          ContextPool(context));
      VLOG(2) << Describe() << ": blocked winograd " << tile << "x" << tile << ", "
              << table.channel_block << " lanes";
      return scratch_.Reserve(context,
                              blocked_winograd_->ScratchBytes(NumThreads(ContextPool(context))));
    }
    blocked_ =
        std::make_unique<BlockedConv2d>(table, params(), Input(1)->data<float>(), bias_data,
                                        Input(0)->channel_block() > 0, ContextArena(context),
                                        ContextPool(context));
    VLOG(2) << Describe() << ": blocked, " << table.channel_block << " lanes";
    return scratch_.Reserve(context, blocked_->ScratchBytes());
  }

  MaceStatus UsePlain(OpContext* context) override {
    if (!plain_pending_) return MaceStatus();
    plain_pending_ = false;
    return PrepareFastKernel(context);
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    const float* bias_data = bias != nullptr ? bias->data<float>() : nullptr;
    if (blocked_winograd_ != nullptr) {
      blocked_winograd_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(),
                             ContextPool(context), scratch_.Get(context));
      return MaceStatus();
    }
    if (block_ != nullptr) {
      block_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(), ContextPool(context),
                  scratch_.Get(context));
      return MaceStatus();
    }
    if (fused_ != nullptr) {
      fused_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(), ContextPool(context),
                  scratch_.Get(context));
      return MaceStatus();
    }
    if (blocked_ != nullptr) {
      blocked_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(), ContextPool(context),
                    scratch_.Get(context));
      return MaceStatus();
    }
    if (half_) {
      fast_->RunHalf(Input(0)->data<uint16_t>(), bias_data, Output(0)->mutable_data<uint16_t>(),
                     ContextPool(context), scratch_.Get(context));
      return MaceStatus();
    }
    if (computed_filter_) {
      // The kernel choice depends on the shapes only, so it is the one
      // Prepare sized the scratch for.
      repack_arena_.Reset();
      fast_ = CreateConv2dKernel(*kernels_, params(), Input(1)->data<float>(), winograd(),
                                 &repack_arena_);
    }
    if (fast_ != nullptr) {
      fast_->Run(Input(0)->data<float>(), bias_data, Output(0)->mutable_data<float>(),
                 ContextPool(context), scratch_.Get(context));
      return MaceStatus();
    }
    ref::Conv2D(params(), Input(0)->data<float>(), Input(1)->data<float>(), bias_data,
                Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;

  // The fused depthwise and 1x1 pair that alone reads the output of this
  // blocked 1x1 convolution on a blocked input, when
  // BlockedDepthwisePointwise takes the expansion too: the expanded tensor
  // is then never written whole.
  bool AbsorbDepthwisePair(const BlockedDepthwisePointwiseReader& pair, const Operation& reader) {
    if (absorbed_ || !ExpandFusionEnabled() || kernels_ == nullptr || BlockedBlock() == 0 ||
        BlockedWinogradTile() != 0 || Output(0)->channel_block() == 0 ||
        Input(0)->channel_block() == 0 || reader.Input(0) != Output(0) ||
        !BlockedDepthwisePointwise::ExpandPays(params(), kernels_->channel_block)) {
      return false;
    }
    auto p = std::make_unique<ExpandedPair>();
    if (!pair.FusedLayers(&p->depthwise, &p->depthwise_filter, &p->depthwise_bias, &p->pointwise,
                          &p->pointwise_filter, &p->pointwise_bias) ||
        !BlockedDepthwisePointwise::SupportsExpand(*kernels_, params(), p->depthwise)) {
      return false;
    }
    pair_ = std::move(p);
    absorbed_ = true;
    absorbed_macs_ = reader.Macs();
    return true;
  }

  // The blocked Winograd tile for this convolution, or 0.
  int BlockedWinogradTile() const {
    const KernelTable* table = kernels_;
    if (table == nullptr || (winograd() != 2 && winograd() != 4 && winograd() != 6)) return 0;
    // Blocked Winograd has tiles up to F(4x4).
    return BlockedWinograd::PickTile(*table, params(), std::min(winograd(), 4));
  }

  // A constant filter is packed here, once; a computed one on every Run.
  MaceStatus PrepareFastKernel(OpContext* context) {
    fast_.reset();
    computed_filter_ = false;
    const KernelTable* table = kernels_;
    if (table == nullptr) return MaceStatus();
    const Tensor* filter = Input(1);
    if (filter->is_weight()) {
      fast_ = CreateConv2dKernel(*table, params(), filter->data<float>(), winograd(),
                                 ContextArena(context));
    } else {
      // The filter has no values yet (nor, before the memory plan, memory).
      const std::vector<float> zeros(static_cast<size_t>(filter->size()), 0.f);
      repack_arena_.Reset();
      fast_ = CreateConv2dKernel(*table, params(), zeros.data(), winograd(), &repack_arena_);
      computed_filter_ = fast_ != nullptr;
    }
    if (fast_ == nullptr) return MaceStatus();
    VLOG(2) << Describe() << ": " << table->name << " " << fast_->name();
    return scratch_.Reserve(context, fast_->ScratchBytes(NumThreads(ContextPool(context))));
  }

  std::unique_ptr<Conv2dKernel> fast_;
  // Set when fast_ packs a filter computed at run time, again on every Run,
  // into repack_arena_, which is written by runs, not at creation: its
  // chunks ask for huge pages as they open, also with MACE_HUGE_PAGES=late.
  bool computed_filter_ = false;
  PersistentArena repack_arena_{true};
  std::unique_ptr<BlockedConv2d> blocked_;
  std::unique_ptr<BlockedWinograd> blocked_winograd_;
  // The absorbed pooling or depthwise and 1x1 pair (AbsorbReader) and the
  // fused kernels.
  bool absorbed_ = false;
  ref::PoolingParams pooling_;
  std::unique_ptr<BlockedConvPool> fused_;
  struct ExpandedPair {
    ref::DepthwiseConv2dParams depthwise;
    ref::Conv2DParams pointwise;
    const float *depthwise_filter = nullptr, *depthwise_bias = nullptr;
    const float *pointwise_filter = nullptr, *pointwise_bias = nullptr;
  };
  std::unique_ptr<ExpandedPair> pair_;
  int64_t absorbed_macs_ = 0;
  std::unique_ptr<BlockedDepthwisePointwise> block_;  // the whole inverted residual block
  bool plain_pending_ = false;
  // Set by UseHalf: input 0 and output 0 hold halves (fast_->RunHalf).
  bool half_ = false;
  OpScratch scratch_;
};

}  // namespace

std::unique_ptr<Operation> NewConv2DCpu() { return std::make_unique<Conv2DCpu>(); }

}  // namespace ops
}  // namespace mace
