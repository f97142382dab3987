// DepthwiseConv2d: each input channel convolved with its own `multiplier`
// filters (MobileNet's depthwise layer). Filter layout is [multiplier,
// channels, kh, kw], as MACE stores TensorFlow's depthwise weights.
//
// Prepare picks the fast 3x3 kernel (stride 1 or 2, mace/ops/cpu) when the
// CPU has one; everything else runs the reference kernel.

#include "mace/ops/ref/depthwise_conv_2d.h"

#include <algorithm>
#include <memory>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

// Keeps index arithmetic far from int64 overflow on hostile models.
constexpr int64_t kMaxWindowArg = int64_t{1} << 20;

bool AllPositive(const std::vector<int64_t>& shape) {
  return std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; });
}

class DepthwiseConv2dOp : public BlockedLayoutOp<> {
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
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* context) override {
    kernels_ = ContextKernelTable(context);
    fast_.reset();
    blocked_.reset();
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
             " but needs rank 4 [multiplier, channels, kh, kw]");
    const int64_t channels = input->dim(1);
    OP_CHECK(filter->dim(1) == channels, "filter has shape ", ShapeToString(filter->shape()),
             " but the input has ", channels, " channels (filter dim 1)");
    const int64_t out_channels = channels * filter->dim(0);
    if (bias != nullptr) {
      OP_CHECK(bias->dim_size() == 1 && bias->dim(0) == out_channels, "bias has shape ",
               ShapeToString(bias->shape()), " but needs [", out_channels, "]");
    }
    WindowGeometry geometry;
    MACE_RETURN_IF_ERROR(ComputeWindow(*this, window_, input->dim(2), input->dim(3), filter->dim(2),
                                       filter->dim(3), &geometry));
    params_.batch = input->dim(0);
    params_.channels = channels;
    params_.in_h = input->dim(2);
    params_.in_w = input->dim(3);
    params_.multiplier = filter->dim(0);
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
    const KernelTable* table = kernels_;
    if (table != nullptr && DepthwiseConv3x3::Supports(*table, params_)) {
      fast_ = std::make_unique<DepthwiseConv3x3>(*table, params_);
      return scratch_.Reserve(context, fast_->ScratchBytes(NumThreads(ContextPool(context))));
    }
    return MaceStatus();
  }

  // Blocked, each vector holds one position of a block of channels, so no
  // border needs code of its own; at stride 2 that beats the plain rows.
  int BlockedBlock() const override {
    const KernelTable* table = kernels_;
    const int block = BlockedLayoutBlock(table);
    const Tensor* bias = Bias();
    if (block == 0 || !Input(1)->is_weight() || (bias != nullptr && !bias->is_weight()) ||
        !BlockedDepthwise::Supports(*table, params_)) {
      return 0;
    }
    return block;
  }
  bool PrefersBlocked() const override { return params_.stride_w >= 2; }

  MaceStatus UseBlocked(OpContext* context) override {
    const Tensor* bias = Bias();
    blocked_ = std::make_unique<BlockedDepthwise>(*kernels_, params_, Input(1)->data<float>(),
                                                  bias != nullptr ? bias->data<float>() : nullptr,
                                                  ContextArena(context));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* bias = Bias();
    const float* bias_data = bias != nullptr ? bias->data<float>() : nullptr;
    if (blocked_ != nullptr) {
      blocked_->Run(Input(0)->data<float>(), Output(0)->mutable_data<float>(),
                    ContextPool(context));
      return MaceStatus();
    }
    if (fast_ != nullptr) {
      fast_->Run(Input(0)->data<float>(), Input(1)->data<float>(), bias_data,
                 Output(0)->mutable_data<float>(), ContextPool(context), scratch_.Get(context));
      return MaceStatus();
    }
    ref::DepthwiseConv2d(params_, Input(0)->data<float>(), Input(1)->data<float>(), bias_data,
                         Output(0)->mutable_data<float>());
    return MaceStatus();
  }

  int64_t Macs() const override {
    return params_.batch * params_.channels * params_.multiplier * params_.out_h * params_.out_w *
           params_.kernel_h * params_.kernel_w;
  }

 private:
  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;
  const Tensor* Bias() const { return InputSize() > 2 ? Input(2) : nullptr; }

  WindowArgs window_;
  ref::DepthwiseConv2dParams params_;
  std::unique_ptr<DepthwiseConv3x3> fast_;
  std::unique_ptr<BlockedDepthwise> blocked_;
  OpScratch scratch_;
};

}  // namespace

MaceStatus RegisterDepthwiseConv2d(OpRegistry* registry) {
  return RegisterOp<DepthwiseConv2dOp>(registry, "DepthwiseConv2d", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
