// DepthwiseConv2d's CPU kernels behind one small interface, and the chooser
// that picks one of them for an op (cpu/depthwise_conv_2d_cpu.cc holds and
// runs it), from the shapes and arguments, the engine's kernel table, the
// layout plan's decision (blocked or plain) and the 1x1 reader the op
// absorbed, if any, in this order:
//   1. blocked, with an absorbed 1x1 convolution: the fused depthwise and
//      1x1 pair (BlockedDepthwisePointwise);
//   2. blocked on its own (BlockedDepthwise);
//   3. plain, the fast 3x3 kernel (stride 1 or 2) where the engine's kernel
//      family has one; it runs on half tensors once the net keeps the op's
//      tensors in half precision (UseHalf, after SupportsHalf);
//   4. the reference kernel.
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_VARIANT_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_VARIANT_H_

#include <cstdint>
#include <memory>

#include "mace/core/tensor.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/ops/ref/depthwise_conv_2d.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

enum class DepthwiseConv2dVariantKind {
  kBlockedPointwise,
  kBlocked,
  kFast,
  kReference,
};

class DepthwiseConv2dVariant {
 public:
  virtual ~DepthwiseConv2dVariant() = default;
  virtual DepthwiseConv2dVariantKind kind() const = 0;
  // Scratch Run needs with `threads` threads.
  virtual int64_t ScratchBytes(int threads) const = 0;
  // Input 0 (plain, blocked or half, as the variant reads it), the filter
  // and bias (null when none), output 0; `scratch` holds
  // ScratchBytes(NumThreads(pool)) bytes.
  virtual void Run(const Tensor* input, const Tensor* filter, const Tensor* bias, Tensor* output,
                   ThreadPool* pool, float* scratch) = 0;
  // The fast 3x3 kernel only: whether it can run on half tensors for these
  // shapes, and switching it to them.
  virtual bool SupportsHalf() const { return false; }
  virtual void UseHalf() {}
};

// What the chooser decides from.
struct DepthwiseConv2dChoice {
  // The engine's CPU kernel family; null: the reference kernel.
  const KernelTable* table = nullptr;
  ref::DepthwiseConv2dParams params;
  // The layout plan's decision: input 0 and output 0 in channel blocks,
  // with the constant filter and bias (null when none) the blocked kernels
  // pack.
  bool blocked = false;
  const float* filter = nullptr;
  const float* bias = nullptr;
  // Blocked only: the absorbed 1x1 convolution, or null, with its filter
  // and bias (null when none).
  const ref::Conv2DParams* pointwise = nullptr;
  const float* pointwise_filter = nullptr;
  const float* pointwise_bias = nullptr;
  // Where packed weights go.
  PersistentArena* arena = nullptr;
};

std::unique_ptr<DepthwiseConv2dVariant> ChooseDepthwiseConv2dVariant(
    const DepthwiseConv2dChoice& choice);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_VARIANT_H_
