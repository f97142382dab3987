// Conv2D's CPU kernel. It holds the one variant ChooseConv2dVariant
// (cpu/conv_2d_variant.h) picks, in that header's order: blocked with an
// absorbed depthwise and 1x1 pair or pooling, blocked Winograd, blocked
// direct, plain fast (on half tensors where the net keeps them), plain fast
// on a filter computed at run time, reference.
// Every ungrouped convolution can run blocked: a 3x3 stride-1 one the
// converter allows Winograd for by blocked Winograd where that pays (it
// needs a blocked input), any other window directly. Run blocked on a
// plain input (a stem), it may also compute the windowed pooling that
// alone reads its output, by bands of rows; a blocked 1x1 on a blocked
// input may compute the fused depthwise and 1x1 pair that alone reads its
// output (an inverted residual block's expansion), by bands of rows too.
// Both are fusions of the net's layout plan (RegisterConv2DCpuFusions).
// Prepare chooses the plain variant, which packs the filter, unless the
// net is still to choose the layout (BlockedBlock offers blocks);
// UseStorage then chooses. A filter computed at run time (not a weight)
// only runs plain.
#include "mace/ops/cpu/conv_2d_cpu.h"

#include <memory>
#include <string>

#include "mace/ops/conv_2d.h"
#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/conv_2d_blocked.h"
#include "mace/ops/cpu/conv_2d_pool_blocked.h"
#include "mace/ops/cpu/conv_2d_variant.h"
#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/depthwise_conv_2d_cpu.h"
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"
#include "mace/ops/cpu/linked_families.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/pooling_cpu.h"
#include "mace/utils/logging.h"

namespace mace {
namespace ops {
namespace {

class Conv2DCpu final : public BlockedLayoutOp<Conv2DBase>, public BlockedPointwiseReader {
 public:
  bool BlockedConvolution(ref::Conv2DParams* params, const float** filter,
                          const float** bias) const override {
    // An op that absorbed its own reader writes that reader's output.
    if (!kLinksBlockedKernels || absorbed() || BlockedBlock() == 0 || BlockedWinogradTile() != 0 ||
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
    // Output 0 is the absorbed reader's output now; the net never prepares
    // a fused op again (only nets of fixed shapes run blocked).
    if (absorbed()) return Invalid("prepared again after absorbing its reader");
    kernels_ = ContextKernelTable(context);
    MACE_RETURN_IF_ERROR(InferShapes());
    variant_.reset();
    // The net may run this op blocked: the plain variant waits for
    // UsePlain, so that the filter is not packed twice.
    plain_pending_ = context != nullptr && context->storage_choice_pending && BlockedBlock() > 0;
    if (plain_pending_) return MaceStatus();
    return Choose(context, /*blocked=*/false);
  }

  // Blocked Winograd and 1x1 convolutions are faster blocked on their own:
  // the transforms need no shuffles, and a 1x1 reads its input in place
  // where the plain GEMM packs it. So are shallow ones such as a network's
  // stem, which take the plain input as it is. Other windows (reading rows
  // of a zero-padded copy of the input) run about as fast as im2col and
  // only join a blocked run.
  int BlockedBlock() const override {
    if (!kLinksBlockedKernels) return 0;
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
    return variant_ != nullptr && variant_->SupportsHalf() && Input(1)->is_weight() &&
           (bias == nullptr || bias->is_weight());
  }
  MaceStatus UseHalf(OpContext* /*context*/) override {
    if (variant_ != nullptr) variant_->UseHalf();
    return MaceStatus();
  }

  // A blocked windowed pooling over the whole output of this convolution
  // run blocked on a plain input (a stem), when BlockedConvPool takes the
  // pair: the stem's output is then never written whole.
  bool AbsorbPooling(const Operation& reader, const BlockedPoolingReader& pooling) {
    ref::PoolingParams pooling_params;
    if (!kLinksBlockedKernels || absorbed() || !ConvPoolingFusionEnabled() || kernels_ == nullptr ||
        BlockedBlock() == 0 || BlockedWinogradTile() != 0 || Output(0)->channel_block() == 0 ||
        Input(0)->channel_block() != 0 || reader.Input(0) != Output(0) ||
        !ConvPoolingFusionPays(params(), kernels_->channel_block) ||
        !pooling.BlockedWindowPooling(&pooling_params)) {
      return false;
    }
    // A probe of the kernel this op would build (a stem's filter is small).
    const BlockedConv2d probe(*kernels_, params(), Input(1)->data<float>(), nullptr,
                              /*blocked_input=*/false);
    if (!BlockedConvPool::Supports(*kernels_, probe, pooling_params)) return false;
    pooling_ = std::make_unique<ref::PoolingParams>(pooling_params);
    return true;
  }

  // The fused depthwise and 1x1 pair that alone reads the output of this
  // blocked 1x1 convolution on a blocked input, when
  // BlockedDepthwisePointwise takes the expansion too: the expanded tensor
  // is then never written whole.
  bool AbsorbDepthwisePair(const Operation& reader, const BlockedDepthwisePointwiseReader& pair) {
    if (!kLinksBlockedKernels || absorbed() || !ExpandFusionEnabled() || kernels_ == nullptr ||
        BlockedBlock() == 0 || BlockedWinogradTile() != 0 || Output(0)->channel_block() == 0 ||
        Input(0)->channel_block() == 0 || reader.Input(0) != Output(0) ||
        !BlockedDepthwisePointwise::ExpandPays(params(), kernels_->channel_block)) {
      return false;
    }
    auto p = std::make_unique<Conv2dExpandedPair>();
    if (!pair.FusedLayers(&p->depthwise, &p->depthwise_filter, &p->depthwise_bias, &p->pointwise,
                          &p->pointwise_filter, &p->pointwise_bias) ||
        !BlockedDepthwisePointwise::SupportsExpand(*kernels_, params(), p->depthwise)) {
      return false;
    }
    pair_ = std::move(p);
    absorbed_macs_ = reader.Macs();
    return true;
  }

  int64_t Macs() const override { return Conv2DBase::Macs() + absorbed_macs_; }

  MaceStatus UseBlocked(OpContext* context) override {
    plain_pending_ = false;
    OP_CHECK(kLinksBlockedKernels, "this library has no blocked kernels");
    OP_CHECK(absorbed() || BlockedWinogradTile() == 0 || Input(0)->channel_block() > 0,
             "blocked Winograd needs a blocked input");
    return Choose(context, /*blocked=*/true);
  }

  MaceStatus UsePlain(OpContext* context) override {
    if (!plain_pending_) return MaceStatus();
    plain_pending_ = false;
    return Choose(context, /*blocked=*/false);
  }

  MaceStatus Run(OpContext* context) override {
    // Only an op the net left to choose and never switched over has none:
    // it runs the reference.
    if (variant_ == nullptr) {
      Conv2dChoice reference = Choice(context, /*blocked=*/false);
      reference.table = nullptr;
      variant_ = ChooseConv2dVariant(reference);
    }
    variant_->Run({Input(0), Input(1), Bias(), Output(0)}, ContextPool(context),
                  scratch_.Get(context));
    return MaceStatus();
  }

 private:
  bool absorbed() const { return pooling_ != nullptr || pair_ != nullptr; }

  int BlockedWinogradTile() const {
    return Conv2dBlockedWinogradTile(kernels_, params(), winograd());
  }

  // What the chooser decides from.
  Conv2dChoice Choice(OpContext* context, bool blocked) const {
    Conv2dChoice choice;
    choice.table = kernels_;
    choice.params = params();
    choice.winograd = winograd();
    const Tensor* filter = Input(1);
    choice.filter = filter->is_weight() ? filter->data<float>() : nullptr;
    choice.filter_size = filter->size();
    const Tensor* bias = Bias();
    choice.bias = blocked && bias != nullptr ? bias->data<float>() : nullptr;
    choice.blocked = blocked;
    choice.blocked_input = blocked && Input(0)->channel_block() > 0;
    choice.winograd_tile = blocked && !absorbed() ? BlockedWinogradTile() : 0;
    choice.pooling = blocked ? pooling_.get() : nullptr;
    choice.pair = blocked ? pair_.get() : nullptr;
    choice.arena = ContextArena(context);
    choice.pool = ContextPool(context);
    return choice;
  }

  // Chooses the variant and reserves its scratch.
  MaceStatus Choose(OpContext* context, bool blocked) {
    variant_ = ChooseConv2dVariant(Choice(context, blocked));
    if (variant_->kind() == Conv2dVariantKind::kReference) return MaceStatus();
    VLOG(2) << Describe() << ": " << variant_->Describe();
    return scratch_.Reserve(context, variant_->ScratchBytes(NumThreads(ContextPool(context))));
  }

  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;
  std::unique_ptr<Conv2dVariant> variant_;
  bool plain_pending_ = false;
  // The absorbed reader, if any: a pooling or a depthwise and 1x1 pair.
  std::unique_ptr<ref::PoolingParams> pooling_;
  std::unique_ptr<Conv2dExpandedPair> pair_;
  int64_t absorbed_macs_ = 0;
  OpScratch scratch_;
};

}  // namespace

std::unique_ptr<Operation> NewConv2DCpu() { return std::make_unique<Conv2DCpu>(); }

MaceStatus RegisterConv2DCpuFusions(OpRegistry* registry) {
  // Every fusion here runs blocked.
  if (!kLinksBlockedKernels) return MaceStatus();
  // A stem and the windowed pooling that reads it.
  MACE_RETURN_IF_ERROR(registry->RegisterFusion(
      "Conv2D", "Pooling", DeviceType::CPU, DT_FLOAT,
      [](Operation* conv, const Operation& pooling) {
        return static_cast<Conv2DCpu*>(conv)->AbsorbPooling(pooling, PoolingCpuReader(pooling));
      }));
  // A 1x1 expansion and the depthwise and 1x1 pair that reads it.
  MACE_RETURN_IF_ERROR(registry->RegisterFusion(
      "Conv2D", "DepthwiseConv2d", DeviceType::CPU, DT_FLOAT,
      [](Operation* conv, const Operation& depthwise) {
        return static_cast<Conv2DCpu*>(conv)->AbsorbDepthwisePair(
            depthwise, DepthwiseConv2dCpuPair(depthwise));
      }));
  // A depthwise layer and the 1x1 that reads it; the fused kernel is the
  // depthwise op's, which cannot see Conv2D's.
  return registry->RegisterFusion(
      "DepthwiseConv2d", "Conv2D", DeviceType::CPU, DT_FLOAT,
      [](Operation* depthwise, const Operation& conv) {
        return AbsorbPointwiseReader(depthwise, conv, static_cast<const Conv2DCpu&>(conv));
      });
}

}  // namespace ops
}  // namespace mace
