// Conv2D: NCHW input, OIHW filter, optional grouped channels, bias and fused
// activation. Converters fold BatchNorm and BiasAdd into it, so it carries
// most of a CNN's MACs.
//
// Arguments beyond the window and activation ones:
//   group     int, default 1
//   winograd  int 0, 2 or 4: Winograd tile size for 3x3 stride-1 convs,
//             chosen by the converter; 0 (default) uses direct methods
//
// Prepare picks a fast CPU kernel when the CPU has one (mace/ops/cpu) and
// packs the filter for it; otherwise Run uses the reference kernel.

#include "mace/ops/ref/conv_2d.h"

#include <algorithm>
#include <memory>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/conv_2d_blocked.h"
#include "mace/ops/cpu/conv_2d_blocked_winograd.h"
#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/registry.h"
#include "mace/utils/logging.h"

namespace mace {
namespace ops {
namespace {

// Keeps index arithmetic far from int64 overflow on hostile models.
constexpr int64_t kMaxWindowArg = int64_t{1} << 20;

bool AllPositive(const std::vector<int64_t>& shape) {
  return std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; });
}

class Conv2DOp : public BlockedLayoutOp {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() >= 2 && InputSize() <= 3 && OutputSize() == 1,
             "needs inputs [input, filter, optional bias] and one output, got ", InputSize(),
             " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    OP_CHECK(Input(1) != nullptr, "filter is missing");
    MACE_RETURN_IF_ERROR(ParseWindowArgs(*this, &window_));
    OP_CHECK(std::max({window_.stride_h, window_.stride_w, window_.dilation_h, window_.dilation_w,
                       window_.pad_top, window_.pad_left, window_.pad_bottom, window_.pad_right}) <=
                 kMaxWindowArg,
             "strides, dilations and pads must not exceed ", kMaxWindowArg);
    MACE_RETURN_IF_ERROR(ParseActivation(*this, /*allow_prelu=*/false, &params_.activation));
    params_.group = GetInt("group", 1);
    OP_CHECK(params_.group >= 1, "group must be positive, got ", params_.group);
    winograd_ = GetInt("winograd", 0);
    OP_CHECK(winograd_ == 0 || winograd_ == 2 || winograd_ == 4, "winograd must be 0, 2 or 4, got ",
             winograd_);
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* context) override {
    kernels_ = ContextKernelTable(context);
    const Tensor* input = Input(0);
    const Tensor* filter = Input(1);
    const Tensor* bias = Bias();
    for (const Tensor* tensor : {input, filter, bias}) {
      if (tensor == nullptr) continue;
      OP_CHECK(tensor->dtype() == DT_FLOAT, "'", tensor->name(), "' is ",
               DataTypeName(tensor->dtype()), " but must be float32");
      OP_CHECK(AllPositive(tensor->shape()), "'", tensor->name(), "' has shape ",
               ShapeToString(tensor->shape()), " with a non-positive dimension");
    }
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    OP_CHECK(filter->dim_size() == 4, "filter has shape ", ShapeToString(filter->shape()),
             " but needs rank 4 (OIHW)");
    const int64_t group = params_.group;
    const int64_t in_channels = input->dim(1);
    const int64_t out_channels = filter->dim(0);
    OP_CHECK(in_channels % group == 0 && out_channels % group == 0, "group ", group,
             " must divide both the ", in_channels, " input channels and the ", out_channels,
             " output channels");
    OP_CHECK(filter->dim(1) * group == in_channels, "filter has shape ",
             ShapeToString(filter->shape()), " (", filter->dim(1),
             " input channels per group) but the input has ", in_channels, " channels in ", group,
             " group(s)");
    if (bias != nullptr) {
      OP_CHECK(bias->dim_size() == 1 && bias->dim(0) == out_channels, "bias has shape ",
               ShapeToString(bias->shape()), " but needs [", out_channels, "]");
    }
    WindowGeometry geometry;
    MACE_RETURN_IF_ERROR(ComputeWindow(*this, window_, input->dim(2), input->dim(3), filter->dim(2),
                                       filter->dim(3), &geometry));
    params_.batch = input->dim(0);
    params_.in_channels = in_channels;
    params_.in_h = input->dim(2);
    params_.in_w = input->dim(3);
    params_.out_channels = out_channels;
    params_.out_h = geometry.out_h;
    params_.out_w = geometry.out_w;
    params_.kernel_h = filter->dim(2);
    params_.kernel_w = filter->dim(3);
    params_.stride_h = window_.stride_h;
    params_.stride_w = window_.stride_w;
    params_.dilation_h = window_.dilation_h;
    params_.dilation_w = window_.dilation_w;
    params_.pad_top = geometry.pad_top;
    params_.pad_left = geometry.pad_left;
    Output(0)->Reshape({params_.batch, out_channels, geometry.out_h, geometry.out_w});
    blocked_.reset();
    blocked_winograd_.reset();
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
    if (!BlockedConv2d::Supports(*table, params_)) return 0;
    if ((winograd_ == 2 || winograd_ == 4) &&
        Conv2dWinograd::PickTile(*table, params_, static_cast<int>(winograd_)) != 0) {
      return 0;
    }
    return block;
  }
  bool PrefersBlocked() const override {
    const bool pointwise = params_.kernel_h == 1 && params_.kernel_w == 1 &&
                           params_.stride_h == 1 && params_.stride_w == 1 && params_.pad_top == 0 &&
                           params_.pad_left == 0 && params_.out_h == params_.in_h &&
                           params_.out_w == params_.in_w;
    return pointwise || params_.in_channels <= 4 || BlockedWinogradTile() != 0;
  }
  bool ReadsDefaultInput(int index) const override {
    return index == 0 && BlockedWinogradTile() == 0;
  }

  MaceStatus UseBlocked(OpContext* context) override {
    const Tensor* bias = Bias();
    const float* bias_data = bias != nullptr ? bias->data<float>() : nullptr;
    const KernelTable& table = *kernels_;
    blocked_.reset();
    blocked_winograd_.reset();
    plain_pending_ = false;
    const int tile = BlockedWinogradTile();
    if (tile != 0) {
      OP_CHECK(Input(0)->channel_block() > 0, "blocked Winograd needs a blocked input");
      blocked_winograd_ = std::make_unique<BlockedWinograd>(table, params_, Input(1)->data<float>(),
                                                            bias_data, tile, ContextArena(context));
      VLOG(2) << Describe() << ": blocked winograd " << tile << "x" << tile << ", "
              << table.channel_block << " lanes";
      return scratch_.Reserve(context,
                              blocked_winograd_->ScratchBytes(NumThreads(ContextPool(context))));
    }
    blocked_ =
        std::make_unique<BlockedConv2d>(table, params_, Input(1)->data<float>(), bias_data,
                                        Input(0)->channel_block() > 0, ContextArena(context));
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
    if (blocked_ != nullptr) {
      blocked_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(), ContextPool(context),
                    scratch_.Get(context));
      return MaceStatus();
    }
    if (fast_ != nullptr) {
      fast_->Run(Input(0)->data<float>(), bias_data, Output(0)->mutable_data<float>(),
                 ContextPool(context), scratch_.Get(context));
      return MaceStatus();
    }
    ref::Conv2D(params_, Input(0)->data<float>(), Input(1)->data<float>(), bias_data,
                Output(0)->mutable_data<float>());
    return MaceStatus();
  }

  int64_t Macs() const override {
    return params_.batch * params_.out_channels * params_.out_h * params_.out_w *
           (params_.in_channels / params_.group) * params_.kernel_h * params_.kernel_w;
  }

 private:
  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;
  const Tensor* Bias() const { return InputSize() > 2 ? Input(2) : nullptr; }

  // The blocked Winograd tile for this convolution, or 0.
  int BlockedWinogradTile() const {
    const KernelTable* table = kernels_;
    if (table == nullptr || (winograd_ != 2 && winograd_ != 4)) return 0;
    return BlockedWinograd::PickTile(*table, params_, static_cast<int>(winograd_));
  }

  // The filter is packed here, so only a constant filter gets a fast kernel.
  MaceStatus PrepareFastKernel(OpContext* context) {
    fast_.reset();
    const KernelTable* table = kernels_;
    if (table == nullptr || !Input(1)->is_weight()) return MaceStatus();
    fast_ = CreateConv2dKernel(*table, params_, Input(1)->data<float>(),
                               static_cast<int>(winograd_), ContextArena(context));
    if (fast_ == nullptr) return MaceStatus();
    VLOG(2) << Describe() << ": " << table->name << " " << fast_->name();
    return scratch_.Reserve(context, fast_->ScratchBytes(NumThreads(ContextPool(context))));
  }

  WindowArgs window_;
  ref::Conv2DParams params_;
  int64_t winograd_ = 0;
  std::unique_ptr<Conv2dKernel> fast_;
  std::unique_ptr<BlockedConv2d> blocked_;
  std::unique_ptr<BlockedWinograd> blocked_winograd_;
  bool plain_pending_ = false;
  OpScratch scratch_;
};

}  // namespace

MaceStatus RegisterConv2D(OpRegistry* registry) {
  return RegisterOp<Conv2DOp>(registry, "Conv2D", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
