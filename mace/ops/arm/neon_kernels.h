// NEON micro-kernels for arm64-v8a and armeabi-v7a. The GEMM tile differs:
// arm64 has 32 vector registers and fused multiply-add, armv7 has 16 and
// multiply-accumulate, so each gets the largest tile its register file holds.
#ifndef MACE_OPS_ARM_NEON_KERNELS_H_
#define MACE_OPS_ARM_NEON_KERNELS_H_

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {
namespace arm {

#if defined(__aarch64__)
// 8 x 12: 24 accumulators, 3 B vectors and 2 A vectors of 32 registers.
constexpr int kNeonGemmMr = 8;
constexpr int kNeonGemmNr = 12;
#else
// 6 x 8: 12 accumulators, 2 B vectors and 1.5 A vectors of 16 registers.
constexpr int kNeonGemmMr = 6;
constexpr int kNeonGemmNr = 8;
#endif

// Direct-convolution tiles (ConvRowsMicroKernel) of the same shape.
void NeonConvRows(int64_t kc, const float* a, const float* base, const int64_t* offsets, float* c,
                  int64_t ldc, int rows, int cols, const TileEpilogue& epilogue);
#if defined(__aarch64__)
// The same with B's rows walked by steps (ConvRowsSteppedMicroKernel).
void NeonConvRowsStepped(int64_t kc, const float* a, const float* first, const int64_t* steps,
                         float* c, int64_t ldc, int rows, int cols, const TileEpilogue& epilogue);
#endif

void NeonGemm(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
              const TileEpilogue& epilogue);

#if !defined(__aarch64__)
// A run of full tiles (GemmRunMicroKernel).
void NeonGemmRun(int64_t tiles, int64_t kc, const float* a, int64_t a_step, const float* b,
                 int64_t b_step, float* c, int64_t c_step, int64_t ldc, int64_t row_bias_step,
                 int64_t col_bias_step, const TileEpilogue& epilogue);
#endif

// A tile with fewer than mr rows or nr columns (GemmPartialMicroKernel).
void NeonGemmPartial(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int rows,
                     int cols, const TileEpilogue& epilogue);

#if defined(__aarch64__)
// Two 8-row panels by 4 columns (GemmNarrowPairMicroKernel).
void NeonGemmNarrowPair(int64_t kc, const float* a, int64_t a_stride, const float* b, float* c,
                        int64_t ldc, bool accumulate);
// A Winograd block's products for one reduction block of kc at each of
// `positions`: 8 rows of C (ldc floats apart) at c + xi * c_step, from C if
// accumulate else from zero, plus A x B, A's panel at a[xi] + a_offset and
// B's at b + xi * b_step, with no epilogue. `cols` (4, 8 or 12) columns,
// or, with a_pair nonzero, 16 rows from two A panels a_pair floats apart
// by `cols` (1 to 4) columns.
void NeonWinogradGemms(int64_t positions, int64_t kc, const float* const* a, int64_t a_offset,
                       int64_t a_pair, const float* b, int64_t b_step, float* c, int64_t c_step,
                       int64_t ldc, int cols, bool accumulate);
#endif

// Runs `iterations` rounds of independent multiply-adds; returns the flops
// done and writes a result to sink[0..3].
int64_t NeonFmaPeak(int64_t iterations, float* sink);

void NeonDepthwise3x3S1(const DepthwiseBand& band);
void NeonDepthwise3x3S2(const DepthwiseBand& band);
#if !defined(__aarch64__)
// Readies plane `plane` of a layer in `band`: its padded input in band->in
// (the same buffer for every plane), its taps, bias and output.
using DepthwisePlaneFill = void (*)(void* context, int64_t plane, DepthwiseBand* band);
// armv7: `planes` planes of a 3x3 depthwise layer at stride 1, or 2 on
// both axes, with the shape and activation of `band`: the column walks are
// worked out once, and fill(context, i, band) readies plane i before they
// run it. Per plane, working them out had cost about as much as the walks
// of a 7x7 plane. False, running nothing, for bands that the walks do not
// take: the caller runs those plane by plane (NeonDepthwise3x3S1 and S2).
bool NeonDepthwise3x3Planes(DepthwiseBand* band, int stride, int64_t planes,
                            DepthwisePlaneFill fill, void* context);
#endif

#if !defined(__aarch64__)
// armv7: whether NeonDepthwise3x3PlanesInPlace takes planes of `band`'s
// shape and activation, read in place with in_pitch their rows' width and
// one row and column of zero padding before the input: at stride 1 (both
// axes, stride_h 1) with that padding after it too (outputs the input's
// size, in_pitch == out_w), 13 outputs a row or more and 2 rows or more; at
// stride 2 (both axes, stride_h 2) 4 outputs a row or more, in_pitch at
// least 2 * out_w and 2 * rows input rows or more (no padding after the
// input is read); no hard-swish.
bool NeonDepthwise3x3TakesPlanesInPlace(const DepthwiseBand& band);
// As NeonDepthwise3x3Planes, with fill(context, i, band) pointing band->in
// at plane i's input itself: no padded copy. False, running nothing, for
// shapes it does not take.
bool NeonDepthwise3x3PlanesInPlace(DepthwiseBand* band, int64_t planes,
                                   DepthwisePlaneFill fill, void* context);
#endif

#if defined(__aarch64__)
// Consecutive whole planes of one 3x3 depthwise convolution with channel
// multiplier 1 and one row and one column of zero padding before the input,
// read in place: the kernel supplies the padding itself, so no padded band
// is copied. At stride 1 (both axes) the padding after is one row and one
// column too (outputs the input's size); at stride 2 (both axes) it is
// never read (2 * out_h input rows and 2 * out_w columns or more).
struct DepthwiseInPlace {
  const float* in = nullptr;    // `planes` planes of in_h x in_w, dense
  const float* taps = nullptr;  // 9 weights a plane, row-major, dense
  const float* bias = nullptr;  // one a plane, or null for none
  float* out = nullptr;         // `planes` planes of out_h x out_w, dense
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t stride = 1;
  TileEpilogue epilogue;  // only activation, lo and hi are read
};
// Whether NeonDepthwise3x3InPlace takes `run`'s shape and activation (its
// pointers and plane count are not read): at stride 1 planes of 7 rows of 5
// to 7, of 14 rows of 9 to 15 and of 4 rows or more of 17 to 256, at stride
// 2 outputs of 4 rows or more of 8 or more and of 7 rows of 4 to 7, and no
// hard-swish.
bool NeonDepthwise3x3TakesInPlace(const DepthwiseInPlace& run);
void NeonDepthwise3x3InPlace(const DepthwiseInPlace& run);
#endif

void NeonPoolingBand(const PoolingBand& band);
float NeonPlaneSum(const float* data, int64_t count);
float NeonPlaneMax(const float* data, int64_t count);

void NeonEltwiseRow(const EltwiseRow& row);

// Channel-blocked convolution and window runs (cpu/blocked_kernels.inc).
void NeonBlockedConv(const BlockedConvRun& run);
void NeonBlockedWindow(const BlockedWindowRun& run);
void NeonBlockedWinogradInput(const BlockedWinogradInputRun& run);
void NeonBlockedWinogradOutput(const BlockedWinogradOutputRun& run);

void NeonWinogradInput(const WinogradInputRun& run);
void NeonWinogradOutput(const WinogradOutputRun& run);
// NeonWinogradInput for `channels` input channels of the run's tiles:
// channel k's rows are the run's rows `channel_stride` floats on (null rows
// stay padding), its results go `out_stride` floats on from run.out. On
// armv7 the checks of the rows and the call are made once for all of them;
// arm64 calls its transform per channel.
void NeonWinogradInputChannels(const WinogradInputRun& run, int64_t channels,
                               int64_t channel_stride, int64_t out_stride);
// NeonWinogradOutput for `channels` output channels of the run's tiles:
// channel k reads its M at run.in + k * channel_pitch, adds biases[k] (or
// run.bias when biases is null) and writes run.plane + k * plane_stride.
// Where its tiles land and which stores they take is worked out once per
// group of four for all of them (on arm64 for F(4x4) groups of four tiles
// with no activation or ReLU; the rest a channel at a time).
void NeonWinogradOutputChannels(const WinogradOutputRun& run, int64_t channels,
                                int64_t channel_pitch, int64_t plane_stride, const float* biases);

bool NeonPanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out);

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARM_NEON_KERNELS_H_
