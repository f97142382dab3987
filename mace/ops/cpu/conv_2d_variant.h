// Conv2D's CPU kernels behind one small interface, and the chooser that
// picks one of them for an op (cpu/conv_2d_cpu.cc holds and runs it). The
// chooser decides from the shapes and arguments, the engine's kernel table,
// the layout plan's decision (blocked or plain) and the reader the op
// absorbed, if any, in this order:
//   1. blocked, with an absorbed depthwise and 1x1 pair: the whole inverted
//      residual block (BlockedDepthwisePointwise with the expansion);
//   2. blocked, with an absorbed windowed pooling: the stem and the pooling
//      (BlockedConvPool);
//   3. blocked Winograd, for a tile (Conv2dBlockedWinogradTile);
//   4. blocked direct (BlockedConv2d), any other blocked convolution;
//   5. plain, the fast kernel of cpu/conv_2d_kernel.h for the shape
//      (CreateConv2dKernel), packed once for a constant filter; it runs on
//      half tensors once the net keeps the op's tensors in half precision
//      (UseHalf, after SupportsHalf);
//   6. plain, the fast kernel rebuilt on every Run for a filter computed at
//      run time;
//   7. the reference convolution, where the engine's kernel family has no
//      fast kernel (or the engine none at all).
// An absorbed reader or a Winograd tile comes only with a blocked run: the
// op asks for them only where the blocked kernels take them.
#ifndef MACE_OPS_CPU_CONV_2D_VARIANT_H_
#define MACE_OPS_CPU_CONV_2D_VARIANT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "mace/core/tensor.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/ops/ref/depthwise_conv_2d.h"
#include "mace/ops/ref/pooling.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

enum class Conv2dVariantKind {
  kBlockedDepthwisePointwise,
  kBlockedConvPool,
  kBlockedWinograd,
  kBlockedDirect,
  kFast,
  kFastComputedFilter,
  kReference,
};

// "blocked winograd", "fast", ...: for tests and logs.
const char* Conv2dVariantName(Conv2dVariantKind kind);

// The tensors of one Run: input 0 (plain, blocked or half, as the variant
// reads it), the filter and bias (null when none) the plain variants read,
// and output 0.
struct Conv2dTensors {
  const Tensor* input = nullptr;
  const Tensor* filter = nullptr;
  const Tensor* bias = nullptr;
  Tensor* output = nullptr;
};

class Conv2dVariant {
 public:
  virtual ~Conv2dVariant() = default;
  virtual Conv2dVariantKind kind() const = 0;
  // The kernel and its table, for VLOG.
  virtual std::string Describe() const = 0;
  // Scratch Run needs with `threads` threads.
  virtual int64_t ScratchBytes(int threads) const = 0;
  // `scratch` holds ScratchBytes(NumThreads(pool)) bytes.
  virtual void Run(const Conv2dTensors& tensors, ThreadPool* pool, float* scratch) = 0;
  // The plain fast kernel only: whether it can run on half tensors for
  // these shapes, and switching it to them (the net keeps the op's tensors
  // in half precision once it has asked).
  virtual bool SupportsHalf() const { return false; }
  virtual void UseHalf() {}
};

// A fused depthwise and 1x1 pair that a 1x1 expansion absorbed: both
// layers' shapes and arguments, filters and biases (null when none).
struct Conv2dExpandedPair {
  ref::DepthwiseConv2dParams depthwise;
  ref::Conv2DParams pointwise;
  const float *depthwise_filter = nullptr, *depthwise_bias = nullptr;
  const float *pointwise_filter = nullptr, *pointwise_bias = nullptr;
};

// What the chooser decides from.
struct Conv2dChoice {
  // The engine's CPU kernel family; null: the reference convolution.
  const KernelTable* table = nullptr;
  ref::Conv2DParams params;
  // The converter's Winograd request: 0, or the largest tile (2, 4 or 6).
  int winograd = 0;
  // The filter (OIHW) when it is a constant, else null: computed at run
  // time, `filter_size` floats.
  const float* filter = nullptr;
  int64_t filter_size = 0;
  // The constant bias, or null (none, or computed: the plain kernels take
  // it at Run).
  const float* bias = nullptr;
  // The layout plan's decision: output 0 in channel blocks, and input 0
  // too (else a plain input, a stem's).
  bool blocked = false;
  bool blocked_input = false;
  // Blocked only: the Winograd tile (Conv2dBlockedWinogradTile), or 0; the
  // absorbed pooling or depthwise and 1x1 pair, or null.
  int winograd_tile = 0;
  const ref::PoolingParams* pooling = nullptr;
  const Conv2dExpandedPair* pair = nullptr;
  // Where packed weights go, and the pool the blocked kernels size for.
  PersistentArena* arena = nullptr;
  ThreadPool* pool = nullptr;
};

std::unique_ptr<Conv2dVariant> ChooseConv2dVariant(const Conv2dChoice& choice);

// The blocked Winograd tile for a convolution the converter allowed
// Winograd (`winograd` 2, 4 or 6), or 0.
int Conv2dBlockedWinogradTile(const KernelTable* table, const ref::Conv2DParams& params,
                              int winograd);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_VARIANT_H_
