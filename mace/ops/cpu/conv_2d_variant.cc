#include "mace/ops/cpu/conv_2d_variant.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "mace/ops/cpu/conv_2d_blocked.h"
#include "mace/ops/cpu/conv_2d_blocked_winograd.h"
#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_pool_blocked.h"
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"
#include "mace/ops/cpu/linked_families.h"
#include "mace/utils/status.h"

namespace mace {
namespace ops {
namespace {

std::string Lanes(const KernelTable& table) {
  return StrCat(table.channel_block, " lanes");
}

const float* BiasData(const Conv2dTensors& tensors) {
  return tensors.bias != nullptr ? tensors.bias->data<float>() : nullptr;
}

// The blocked kernels all read input 0 and write output 0 as floats;
// `Kernel` is one of them, with Run(input, output, pool, scratch).
template <typename Kernel, Conv2dVariantKind kKind>
class BlockedVariant final : public Conv2dVariant {
 public:
  BlockedVariant(const KernelTable& table, std::unique_ptr<Kernel> kernel, std::string what,
                 int64_t scratch_bytes)
      : table_(table),
        kernel_(std::move(kernel)),
        what_(std::move(what)),
        scratch_bytes_(scratch_bytes) {}
  Conv2dVariantKind kind() const override { return kKind; }
  std::string Describe() const override { return StrCat(what_, ", ", Lanes(table_)); }
  int64_t ScratchBytes(int /*threads*/) const override { return scratch_bytes_; }
  void Run(const Conv2dTensors& tensors, ThreadPool* pool, float* scratch) override {
    kernel_->Run(tensors.input->data<float>(), tensors.output->mutable_data<float>(), pool,
                 scratch);
  }

 private:
  const KernelTable& table_;
  std::unique_ptr<Kernel> kernel_;
  std::string what_;
  // The kernels size their scratch for the pool they were built for.
  int64_t scratch_bytes_;
};

// The fast kernel packed once, on float or (UseHalf) half tensors.
class FastVariant final : public Conv2dVariant {
 public:
  FastVariant(const KernelTable& table, std::unique_ptr<Conv2dKernel> kernel)
      : table_(table), kernel_(std::move(kernel)) {}
  Conv2dVariantKind kind() const override { return Conv2dVariantKind::kFast; }
  std::string Describe() const override { return StrCat(table_.name, " ", kernel_->name()); }
  int64_t ScratchBytes(int threads) const override { return kernel_->ScratchBytes(threads); }
  void Run(const Conv2dTensors& tensors, ThreadPool* pool, float* scratch) override {
    if (half_) {
      kernel_->RunHalf(tensors.input->data<uint16_t>(), BiasData(tensors),
                       tensors.output->mutable_data<uint16_t>(), pool, scratch);
      return;
    }
    kernel_->Run(tensors.input->data<float>(), BiasData(tensors),
                 tensors.output->mutable_data<float>(), pool, scratch);
  }
  bool SupportsHalf() const override { return kernel_->SupportsHalf(); }
  void UseHalf() override { half_ = true; }

 private:
  const KernelTable& table_;
  std::unique_ptr<Conv2dKernel> kernel_;
  bool half_ = false;  // input 0 and output 0 hold halves
};

// The fast kernel for a filter computed at run time, built again on every
// Run on the filter of that run. The kernel choice depends on the shapes
// only, so it is the one built on a zero filter at creation, which sized
// the scratch. The packed filter goes to an arena of the variant's own,
// reused from run to run, which runs write, not the creation: its chunks
// ask for huge pages as they open, also with MACE_HUGE_PAGES=late.
class ComputedFilterVariant final : public Conv2dVariant {
 public:
  // Null when no fast kernel takes the shapes.
  static std::unique_ptr<ComputedFilterVariant> Create(const Conv2dChoice& choice) {
    std::unique_ptr<ComputedFilterVariant> variant(new ComputedFilterVariant(choice));
    // The filter has no values yet (nor, before the memory plan, memory).
    const std::vector<float> zeros(static_cast<size_t>(choice.filter_size), 0.f);
    variant->kernel_ = CreateConv2dKernel(*choice.table, choice.params, zeros.data(),
                                          choice.winograd, &variant->repack_arena_);
    if (variant->kernel_ == nullptr) return nullptr;
    return variant;
  }
  Conv2dVariantKind kind() const override { return Conv2dVariantKind::kFastComputedFilter; }
  // Valid before the first Run.
  std::string Describe() const override { return StrCat(table_.name, " ", kernel_->name()); }
  int64_t ScratchBytes(int threads) const override { return kernel_->ScratchBytes(threads); }
  void Run(const Conv2dTensors& tensors, ThreadPool* pool, float* scratch) override {
    repack_arena_.Reset();
    kernel_ = CreateConv2dKernel(table_, params_, tensors.filter->data<float>(), winograd_,
                                 &repack_arena_);
    if (kernel_ == nullptr) {
      ref::Conv2D(params_, tensors.input->data<float>(), tensors.filter->data<float>(),
                  BiasData(tensors), tensors.output->mutable_data<float>());
      return;
    }
    kernel_->Run(tensors.input->data<float>(), BiasData(tensors),
                 tensors.output->mutable_data<float>(), pool, scratch);
  }

 private:
  explicit ComputedFilterVariant(const Conv2dChoice& choice)
      : table_(*choice.table), params_(choice.params), winograd_(choice.winograd) {}

  const KernelTable& table_;
  ref::Conv2DParams params_;
  int winograd_;
  PersistentArena repack_arena_{true};
  std::unique_ptr<Conv2dKernel> kernel_;
};

class ReferenceVariant final : public Conv2dVariant {
 public:
  explicit ReferenceVariant(const ref::Conv2DParams& params) : params_(params) {}
  Conv2dVariantKind kind() const override { return Conv2dVariantKind::kReference; }
  std::string Describe() const override { return "reference"; }
  int64_t ScratchBytes(int /*threads*/) const override { return 0; }
  void Run(const Conv2dTensors& tensors, ThreadPool* /*pool*/, float* /*scratch*/) override {
    ref::Conv2D(params_, tensors.input->data<float>(), tensors.filter->data<float>(),
                BiasData(tensors), tensors.output->mutable_data<float>());
  }

 private:
  ref::Conv2DParams params_;
};

std::unique_ptr<Conv2dVariant> ChooseBlocked(const Conv2dChoice& c) {
  const KernelTable& table = *c.table;
  const int threads = NumThreads(c.pool);
  if (c.pair != nullptr) {
    const Conv2dExpandedPair& p = *c.pair;
    auto kernel = std::make_unique<BlockedDepthwisePointwise>(
        table, p.depthwise, p.depthwise_filter, p.depthwise_bias, p.pointwise,
        p.pointwise_filter, p.pointwise_bias, c.arena, &c.params, c.filter, c.bias);
    const int64_t scratch = kernel->ScratchBytes(threads);
    return std::make_unique<BlockedVariant<BlockedDepthwisePointwise,
                                           Conv2dVariantKind::kBlockedDepthwisePointwise>>(
        table, std::move(kernel), "blocked, depthwise and 1x1 fused", scratch);
  }
  if (c.pooling != nullptr) {
    auto kernel = std::make_unique<BlockedConvPool>(
        table,
        std::make_unique<BlockedConv2d>(table, c.params, c.filter, c.bias,
                                        /*blocked_input=*/false, c.arena, c.pool),
        *c.pooling);
    const int64_t scratch = kernel->ScratchBytes(threads);
    return std::make_unique<BlockedVariant<BlockedConvPool, Conv2dVariantKind::kBlockedConvPool>>(
        table, std::move(kernel), "blocked, pooling fused", scratch);
  }
  if (c.winograd_tile != 0) {
    auto kernel = std::make_unique<BlockedWinograd>(table, c.params, c.filter, c.bias,
                                                    c.winograd_tile, c.arena, c.pool);
    const int64_t scratch = kernel->ScratchBytes(threads);
    return std::make_unique<BlockedVariant<BlockedWinograd, Conv2dVariantKind::kBlockedWinograd>>(
        table, std::move(kernel),
        StrCat("blocked winograd ", c.winograd_tile, "x", c.winograd_tile), scratch);
  }
  auto kernel = std::make_unique<BlockedConv2d>(table, c.params, c.filter, c.bias,
                                                c.blocked_input, c.arena, c.pool);
  const int64_t scratch = kernel->ScratchBytes();
  return std::make_unique<BlockedVariant<BlockedConv2d, Conv2dVariantKind::kBlockedDirect>>(
      table, std::move(kernel), "blocked", scratch);
}

}  // namespace

const char* Conv2dVariantName(Conv2dVariantKind kind) {
  switch (kind) {
    case Conv2dVariantKind::kBlockedDepthwisePointwise:
      return "blocked depthwise and 1x1 pair";
    case Conv2dVariantKind::kBlockedConvPool:
      return "blocked conv and pooling";
    case Conv2dVariantKind::kBlockedWinograd:
      return "blocked winograd";
    case Conv2dVariantKind::kBlockedDirect:
      return "blocked direct";
    case Conv2dVariantKind::kFast:
      return "fast";
    case Conv2dVariantKind::kFastComputedFilter:
      return "fast, computed filter";
    case Conv2dVariantKind::kReference:
      return "reference";
  }
  return "unknown";
}

std::unique_ptr<Conv2dVariant> ChooseConv2dVariant(const Conv2dChoice& choice) {
  // A build without the blocked kernels never runs an op blocked
  // (Conv2DCpu::BlockedBlock is 0).
  if (kLinksBlockedKernels && choice.table != nullptr && choice.blocked) {
    return ChooseBlocked(choice);
  }
  if (choice.table != nullptr) {
    if (choice.filter != nullptr) {
      std::unique_ptr<Conv2dKernel> kernel = CreateConv2dKernel(
          *choice.table, choice.params, choice.filter, choice.winograd, choice.arena);
      if (kernel != nullptr) return std::make_unique<FastVariant>(*choice.table, std::move(kernel));
    } else {
      std::unique_ptr<ComputedFilterVariant> computed = ComputedFilterVariant::Create(choice);
      if (computed != nullptr) return computed;
    }
  }
  return std::make_unique<ReferenceVariant>(choice.params);
}

int Conv2dBlockedWinogradTile(const KernelTable* table, const ref::Conv2DParams& params,
                              int winograd) {
  if (!kLinksBlockedKernels || !kLinksWinogradKernels || table == nullptr ||
      (winograd != 2 && winograd != 4 && winograd != 6)) {
    return 0;
  }
  // Blocked Winograd has tiles up to F(4x4).
  return BlockedWinograd::PickTile(*table, params, std::min(winograd, 4));
}

}  // namespace ops
}  // namespace mace
