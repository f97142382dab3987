// Fast Conv2D kernels and the choice between them.
//
// The op (mace/ops/conv_2d.cc) stays device-neutral: in Prepare it asks
// CreateConv2dKernel for a kernel, which packs the filter once, and in Run it
// calls the kernel or, when there is none, the reference kernel.
#ifndef MACE_OPS_CPU_CONV_2D_KERNEL_H_
#define MACE_OPS_CPU_CONV_2D_KERNEL_H_

#include <cstdint>
#include <memory>

#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class Conv2dKernel {
 public:
  virtual ~Conv2dKernel() = default;
  virtual const char* name() const = 0;
  // Scratch Run needs when the pool has `threads` threads.
  virtual int64_t ScratchBytes(int threads) const = 0;
  // input, bias (or null) and output as in ref::Conv2D; output must not
  // alias input. `scratch` holds ScratchBytes(NumThreads(pool)) bytes.
  virtual void Run(const float* input, const float* bias, float* output, ThreadPool* pool,
                   float* scratch) const = 0;
  // Whether RunHalf can run: the same convolution on input and output held
  // in half precision (raw 16-bit patterns, Storage::Plain(DT_HALF)), with
  // the same scratch. Only half-precision kernels of some shapes can.
  virtual bool SupportsHalf() const { return false; }
  virtual void RunHalf(const uint16_t* /*input*/, const float* /*bias*/, uint16_t* /*output*/,
                       ThreadPool* /*pool*/, float* /*scratch*/) const {}
};

// The kernel for `params`, or null when only the reference covers them.
// `winograd` is the op's argument: 2, 4 or 6 ask for Winograd F(2x2, 3x3),
// F(4x4, 3x3) or F(6x6, 3x3) on 3x3 stride-1 convolutions, 0 for direct
// methods.
//   - 3x3 depthwise (group == channels, stride 1 or 2): row kernels;
//   - winograd 2, 4 or 6 on an ungrouped 3x3 stride-1 undilated conv: Winograd
//     with the largest tile up to the one asked for that pays for the shape
//     (Conv2dWinograd::PickTile), else the GEMM below;
//   - a reduction (in channels x taps) of at most one kc block, ungrouped
//     and undilated at horizontal stride 1 or 2, other than a plain 1x1:
//     direct, GEMM tiles reading a padded copy of the input in place
//     (Conv2dDirect), where the table has the kernel for it;
//   - anything else: GEMM over the packed filter, reading the input directly
//     for 1x1 stride-1 unpadded convs and through im2col packing otherwise.
// Packed filters go to `arena` (the engine's persistent arena) when given.
std::unique_ptr<Conv2dKernel> CreateConv2dKernel(const KernelTable& table,
                                                 const ref::Conv2DParams& params,
                                                 const float* filter, int winograd,
                                                 PersistentArena* arena = nullptr);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_KERNEL_H_
