#include "mace/ops/cpu/depthwise_conv_2d_variant.h"

#include <utility>

#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"
#include "mace/ops/cpu/linked_families.h"

namespace mace {
namespace ops {
namespace {

const float* BiasData(const Tensor* bias) {
  return bias != nullptr ? bias->data<float>() : nullptr;
}

class BlockedPointwiseVariant final : public DepthwiseConv2dVariant {
 public:
  explicit BlockedPointwiseVariant(std::unique_ptr<BlockedDepthwisePointwise> kernel)
      : kernel_(std::move(kernel)) {}
  DepthwiseConv2dVariantKind kind() const override {
    return DepthwiseConv2dVariantKind::kBlockedPointwise;
  }
  int64_t ScratchBytes(int threads) const override { return kernel_->ScratchBytes(threads); }
  void Run(const Tensor* input, const Tensor* /*filter*/, const Tensor* /*bias*/, Tensor* output,
           ThreadPool* pool, float* scratch) override {
    kernel_->Run(input->data<float>(), output->mutable_data<float>(), pool, scratch);
  }

 private:
  std::unique_ptr<BlockedDepthwisePointwise> kernel_;
};

class BlockedVariant final : public DepthwiseConv2dVariant {
 public:
  explicit BlockedVariant(std::unique_ptr<BlockedDepthwise> kernel) : kernel_(std::move(kernel)) {}
  DepthwiseConv2dVariantKind kind() const override { return DepthwiseConv2dVariantKind::kBlocked; }
  int64_t ScratchBytes(int /*threads*/) const override { return 0; }
  void Run(const Tensor* input, const Tensor* /*filter*/, const Tensor* /*bias*/, Tensor* output,
           ThreadPool* pool, float* /*scratch*/) override {
    kernel_->Run(input->data<float>(), output->mutable_data<float>(), pool);
  }

 private:
  std::unique_ptr<BlockedDepthwise> kernel_;
};

// The 3x3 kernel, on float or (UseHalf) half tensors.
class FastVariant final : public DepthwiseConv2dVariant {
 public:
  explicit FastVariant(std::unique_ptr<DepthwiseConv3x3> kernel) : kernel_(std::move(kernel)) {}
  DepthwiseConv2dVariantKind kind() const override { return DepthwiseConv2dVariantKind::kFast; }
  int64_t ScratchBytes(int threads) const override { return kernel_->ScratchBytes(threads); }
  void Run(const Tensor* input, const Tensor* filter, const Tensor* bias, Tensor* output,
           ThreadPool* pool, float* scratch) override {
    if (half_) {
      kernel_->RunHalf(input->data<uint16_t>(), filter->data<float>(), BiasData(bias),
                       output->mutable_data<uint16_t>(), pool, scratch);
      return;
    }
    kernel_->Run(input->data<float>(), filter->data<float>(), BiasData(bias),
                 output->mutable_data<float>(), pool, scratch);
  }
  bool SupportsHalf() const override { return kernel_->SupportsHalf(); }
  void UseHalf() override { half_ = true; }

 private:
  std::unique_ptr<DepthwiseConv3x3> kernel_;
  bool half_ = false;  // input 0 and output 0 hold halves
};

class ReferenceVariant final : public DepthwiseConv2dVariant {
 public:
  explicit ReferenceVariant(const ref::DepthwiseConv2dParams& params) : params_(params) {}
  DepthwiseConv2dVariantKind kind() const override {
    return DepthwiseConv2dVariantKind::kReference;
  }
  int64_t ScratchBytes(int /*threads*/) const override { return 0; }
  void Run(const Tensor* input, const Tensor* filter, const Tensor* bias, Tensor* output,
           ThreadPool* /*pool*/, float* /*scratch*/) override {
    ref::DepthwiseConv2d(params_, input->data<float>(), filter->data<float>(), BiasData(bias),
                         output->mutable_data<float>());
  }

 private:
  ref::DepthwiseConv2dParams params_;
};

}  // namespace

std::unique_ptr<DepthwiseConv2dVariant> ChooseDepthwiseConv2dVariant(
    const DepthwiseConv2dChoice& c) {
  if (kLinksBlockedKernels && c.table != nullptr && c.blocked) {
    if (c.pointwise != nullptr) {
      return std::make_unique<BlockedPointwiseVariant>(std::make_unique<BlockedDepthwisePointwise>(
          *c.table, c.params, c.filter, c.bias, *c.pointwise, c.pointwise_filter, c.pointwise_bias,
          c.arena));
    }
    return std::make_unique<BlockedVariant>(
        std::make_unique<BlockedDepthwise>(*c.table, c.params, c.filter, c.bias, c.arena));
  }
  if (c.table != nullptr && DepthwiseConv3x3::Supports(*c.table, c.params)) {
    return std::make_unique<FastVariant>(std::make_unique<DepthwiseConv3x3>(*c.table, c.params));
  }
  return std::make_unique<ReferenceVariant>(c.params);
}

}  // namespace ops
}  // namespace mace
