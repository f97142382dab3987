// DepthwiseConv2d's CPU kernel. It holds the one variant
// ChooseDepthwiseConv2dVariant (cpu/depthwise_conv_2d_variant.h) picks, in
// that header's order:
//   1. blocked, when the net runs the op in channel blocks: fused with the
//      1x1 convolution that alone reads its output (AbsorbPointwiseReader,
//      the net's (DepthwiseConv2d, Conv2D) fusion) on maps of at least
//      56x56, else on its own (the fused pair may itself be absorbed by the
//      1x1 expansion before it: the (Conv2D, DepthwiseConv2d) fusion);
//   2. the fast 3x3 kernel (stride 1 or 2), when the engine's kernel family
//      has one (on half tensors where an fp16 engine keeps them);
//   3. the reference kernel.
// Prepare chooses the plain variant; UseBlocked chooses again.
#include "mace/ops/cpu/depthwise_conv_2d_cpu.h"

#include <memory>

#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"
#include "mace/ops/cpu/depthwise_conv_2d_variant.h"
#include "mace/ops/cpu/linked_families.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/depthwise_conv_2d.h"

namespace mace {
namespace ops {
namespace {

class DepthwiseConv2dCpu final : public BlockedLayoutOp<DepthwiseConv2dBase>,
                                 public BlockedDepthwisePointwiseReader {
 public:
  bool FusedLayers(ref::DepthwiseConv2dParams* depthwise, const float** depthwise_filter,
                   const float** depthwise_bias, ref::Conv2DParams* pointwise,
                   const float** pointwise_filter, const float** pointwise_bias) const override {
    if (!absorbed_) return false;
    const Tensor* bias = Bias();
    *depthwise = params();
    *depthwise_filter = Input(1)->data<float>();
    *depthwise_bias = bias != nullptr ? bias->data<float>() : nullptr;
    *pointwise = pointwise_;
    *pointwise_filter = pointwise_filter_;
    *pointwise_bias = pointwise_bias_;
    return true;
  }

  MaceStatus Prepare(OpContext* context) override {
    // Output 0 is the absorbed 1x1's output now; the net never prepares a
    // fused op again (only nets of fixed shapes run blocked).
    if (absorbed_) return Invalid("prepared again after absorbing its 1x1 reader");
    kernels_ = ContextKernelTable(context);
    variant_.reset();
    MACE_RETURN_IF_ERROR(InferShapes());
    return Choose(context, /*blocked=*/false);
  }

  // Blocked, each vector holds one position of a block of channels, so no
  // border needs code of its own; at stride 2 that beats the plain rows.
  int BlockedBlock() const override {
    if (!kLinksBlockedKernels) return 0;
    const KernelTable* table = kernels_;
    const int block = BlockedLayoutBlock(table);
    const Tensor* bias = Bias();
    if (block == 0 || !Input(1)->is_weight() || (bias != nullptr && !bias->is_weight()) ||
        !BlockedDepthwise::Supports(*table, params())) {
      return 0;
    }
    return block;
  }
  bool PrefersBlocked() const override { return params().stride_w >= 2; }

  // In an fp16 engine the 3x3 kernel reads and writes halves (constant
  // filter and bias, a fused activation).
  bool HalfCapable() const override {
    const Tensor* bias = Bias();
    return variant_ != nullptr && variant_->SupportsHalf() && Input(1)->is_weight() &&
           (bias == nullptr || bias->is_weight());
  }
  MaceStatus UseHalf(OpContext* /*context*/) override {
    if (variant_ != nullptr) variant_->UseHalf();
    return MaceStatus();
  }

  // A blocked 1x1 convolution (stride 1, the fused kernel's activations)
  // over the whole output, on a map large enough for the fused kernel to
  // gain, with constant filters and biases.
  bool AbsorbPointwise(const Operation& reader, const BlockedPointwiseReader& pointwise) {
    if (!kLinksBlockedKernels || absorbed_ || !DepthwisePointwiseFusionEnabled() ||
        kernels_ == nullptr || BlockedBlock() == 0 || Output(0)->channel_block() == 0 ||
        reader.Input(0) != Output(0) ||
        params().out_h * params().out_w < kDepthwisePointwiseMinPlane ||
        !pointwise.BlockedConvolution(&pointwise_, &pointwise_filter_, &pointwise_bias_) ||
        !BlockedDepthwisePointwise::Supports(*kernels_, params(), pointwise_)) {
      return false;
    }
    absorbed_ = true;
    pointwise_macs_ = reader.Macs();
    return true;
  }
  int64_t Macs() const override { return DepthwiseConv2dBase::Macs() + pointwise_macs_; }

  MaceStatus UseBlocked(OpContext* context) override {
    OP_CHECK(kLinksBlockedKernels, "this library has no blocked kernels");
    return Choose(context, /*blocked=*/true);
  }

  MaceStatus Run(OpContext* context) override {
    variant_->Run(Input(0), Input(1), Bias(), Output(0), ContextPool(context),
                  scratch_.Get(context));
    return MaceStatus();
  }

 private:
  // Chooses the variant and reserves its scratch.
  MaceStatus Choose(OpContext* context, bool blocked) {
    DepthwiseConv2dChoice choice;
    choice.table = kernels_;
    choice.params = params();
    choice.blocked = blocked;
    if (blocked) {
      const Tensor* bias = Bias();
      choice.filter = Input(1)->data<float>();
      choice.bias = bias != nullptr ? bias->data<float>() : nullptr;
      choice.arena = ContextArena(context);
    }
    if (blocked && absorbed_) {
      choice.pointwise = &pointwise_;
      choice.pointwise_filter = pointwise_filter_;
      choice.pointwise_bias = pointwise_bias_;
    }
    variant_ = ChooseDepthwiseConv2dVariant(choice);
    const int64_t scratch = variant_->ScratchBytes(NumThreads(ContextPool(context)));
    return scratch > 0 ? scratch_.Reserve(context, scratch) : MaceStatus();
  }

  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;
  std::unique_ptr<DepthwiseConv2dVariant> variant_;
  // The absorbed 1x1 convolution (AbsorbPointwise).
  bool absorbed_ = false;
  ref::Conv2DParams pointwise_;
  const float* pointwise_filter_ = nullptr;
  const float* pointwise_bias_ = nullptr;
  int64_t pointwise_macs_ = 0;
  OpScratch scratch_;
};

}  // namespace

std::unique_ptr<Operation> NewDepthwiseConv2dCpu() {
  return std::make_unique<DepthwiseConv2dCpu>();
}

const BlockedDepthwisePointwiseReader& DepthwiseConv2dCpuPair(const Operation& depthwise) {
  return static_cast<const DepthwiseConv2dCpu&>(depthwise);
}

bool AbsorbPointwiseReader(Operation* depthwise, const Operation& reader,
                           const BlockedPointwiseReader& pointwise) {
  return static_cast<DepthwiseConv2dCpu*>(depthwise)->AbsorbPointwise(reader, pointwise);
}

}  // namespace ops
}  // namespace mace
