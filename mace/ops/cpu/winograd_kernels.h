// Signatures of the Winograd family's optional kernels (the winograd_*
// fields of cpu/kernel_table.h) that the driver (conv_2d_winograd.cc) runs
// instead of the table's plain ones where a port has them: transforms of
// several channels in one call, the products of every position in one
// call, and run kernels for a block's narrow last panel.
#ifndef MACE_OPS_CPU_WINOGRAD_KERNELS_H_
#define MACE_OPS_CPU_WINOGRAD_KERNELS_H_

#include <cstdint>

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {

// The input transform for `channels` input channels of the run's tiles:
// channel k's rows are the run's rows `channel_stride` floats on (null rows
// stay padding), its results go `out_stride` floats on from run.out.
using WinogradInputChannelsKernel = void (*)(const WinogradInputRun& run, int64_t channels,
                                             int64_t channel_stride, int64_t out_stride);
// The output transform for `channels` output channels of the run's tiles:
// channel k reads its M at run.in + k * channel_pitch, adds biases[k] (or
// run.bias when biases is null) and writes run.plane + k * plane_stride.
using WinogradOutputChannelsKernel = void (*)(const WinogradOutputRun& run, int64_t channels,
                                              int64_t channel_pitch, int64_t plane_stride,
                                              const float* biases);
// A block's products for one reduction block of kc at each of `positions`:
// the table's mr rows of C (ldc floats apart) at c + xi * c_step, from C if
// accumulate else from zero, plus A x B, A's panel at a[xi] + a_offset and
// B's at b + xi * b_step, with no epilogue. `cols` columns of a whole or
// partial panel, or, with a_pair nonzero, 2 mr rows from two A panels
// a_pair floats apart by `cols` (1 to 4) columns.
using WinogradGemmsKernel = void (*)(int64_t positions, int64_t kc, const float* const* a,
                                     int64_t a_offset, int64_t a_pair, const float* b,
                                     int64_t b_step, float* c, int64_t c_step, int64_t ldc,
                                     int cols, bool accumulate);
// Runs of `tiles` 6 x 4 tiles (the first 4 columns of B panels b_width, 8
// or 4, floats a depth; A panels a_step, B panels b_step and C tiles c_step
// floats apart), from C or zero, no bias or clamp; and the same over two
// micro-tiles (A panels a_pair floats apart) at once. Sizes and strides in
// 32 bits.
using WinogradRun6x4Kernel = void (*)(int tiles, int kc, const float* a, int a_step, const float* b,
                                      int b_step, float* c, int c_step, int ldc_bytes, bool from_c,
                                      int b_width);
using WinogradRun12x4Kernel = void (*)(int tiles, int kc, const float* a, int a_pair, int a_step,
                                       const float* b, int b_step, float* c, int c_step,
                                       int ldc_bytes, bool from_c, int b_width);
// 6 x 8 tiles on B as two 4-wide panels, the right one b_right floats
// after the left.
using WinogradRun6x8OnPanelsKernel = void (*)(int tiles, int kc, const float* a, int a_step,
                                              const float* b, int b_right, int b_step, float* c,
                                              int c_step, int ldc_bytes, bool from_c);
// One 6 x 1 tile (C rows ldc_bytes apart, B's panel b_width floats a
// depth), from C or zero, plus the bias and clamp of a plain GEMM tile.
using WinogradTile6x1Kernel = void (*)(int kc, const float* a, const float* b, float* c,
                                       int ldc_bytes, bool from_c, const float* bias, bool clamp,
                                       bool clamp_hi, const float* bounds, int b_width);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_WINOGRAD_KERNELS_H_
