// AVX2/FMA micro-kernels. Their files are built with -mavx2 -mfma, so they
// are only called after cpu_features.h has found AVX2 and FMA; see
// mace/ops/cpu/kernel_table.cc.
#ifndef MACE_OPS_X86_AVX2_KERNELS_H_
#define MACE_OPS_X86_AVX2_KERNELS_H_

#include "mace/ops/cpu/micro_kernels.h"
#include "mace/ops/cpu/quantized_micro_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

// The GEMM tile: 6 rows x 16 columns keeps 12 accumulators, two B vectors and
// one broadcast A value in the 16 YMM registers.
constexpr int kAvx2GemmMr = 6;
constexpr int kAvx2GemmNr = 16;
void Avx2Gemm6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                  const TileEpilogue& epilogue);
// The same tile with A read in place, rows lda apart (GemmDirectAMicroKernel).
void Avx2Gemm6x16DirectA(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                         int64_t ldc, const TileEpilogue& epilogue);
// Partial 6 x 16 tiles (GemmPartialMicroKernel): all 16 columns on the
// asm tile over the tile's rows, else with masked loads and stores; up to 8
// columns run half the multiply-adds.
void Avx2GemmPartial6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                         int rows, int cols, const TileEpilogue& epilogue);

// 6 x 16 tiles of a direct convolution (ConvRowsMicroKernel).
void Avx2ConvRows6x16(int64_t kc, const float* a, const float* base, const int64_t* offsets,
                      float* c, int64_t ldc, int rows, int cols, const TileEpilogue& epilogue);

// Runs `iterations` rounds of independent FMAs; returns the flops done and
// writes a result to sink[0..7] so the work cannot be elided.
int64_t Avx2FmaPeak(int64_t iterations, float* sink);

void Avx2Depthwise3x3S1(const DepthwiseBand& band);
void Avx2Depthwise3x3S2(const DepthwiseBand& band);

void Avx2PoolingBand(const PoolingBand& band);
float Avx2PlaneSum(const float* data, int64_t count);
float Avx2PlaneMax(const float* data, int64_t count);

void Avx2EltwiseRow(const EltwiseRow& row);

// Channel-blocked convolution and window runs (cpu/blocked_kernels.inc).
void Avx2BlockedConv(const BlockedConvRun& run);
void Avx2BlockedPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst);
// Activations to and from channel blocks by register transposes
// (channel_blocks_avx2.cc).
void Avx2ChannelPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst);
void Avx2ChannelUnpack(const float* src, int lanes, int64_t count, float* dst, int64_t stride);
void Avx2BlockedWindow(const BlockedWindowRun& run);
void Avx2BlockedWinogradInput(const BlockedWinogradInputRun& run);
void Avx2BlockedWinogradOutput(const BlockedWinogradOutputRun& run);

void Avx2WinogradInput(const WinogradInputRun& run);
void Avx2WinogradOutput(const WinogradOutputRun& run);
void Avx2WinogradFilter(const float* g, int tile, float* u);

bool Avx2PanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out);

// The uint8 GEMM (QuantizedGemmKernel) on kQuantPairsInt16 words (the
// AVX-512 VNNI one on kQuantQuadsUint8 words is in avx512_kernels.h).
void Avx2QuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                       int64_t cols, int32_t* c);
// The same with its output step fused (QuantizedGemmRequantKernel).
void Avx2QuantizedGemmRequant(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                              int64_t cols, const RequantizeTile& tile);
// The uint8 GEMM's output step (RequantizeRowKernel), 8 values at a time.
void Avx2RequantizeRow(const RequantizeRow& row);

// float to uint8 (QuantizeUint8Kernel), 8 values at a time in double.
void Avx2QuantizeUint8(const float* in, int64_t count, float scale, int32_t zero_point,
                       uint8_t* out);

// Rows of a 3x3 uint8 depthwise convolution (DepthwiseUint8RowKernel), by
// horizontal stride, 8 int32 sums at a time.
void Avx2DepthwiseUint8S1(const DepthwiseUint8Row& row);
void Avx2DepthwiseUint8S2(const DepthwiseUint8Row& row);
void Avx2DepthwiseUint8RequantS1(const DepthwiseUint8RequantRow& row);
void Avx2DepthwiseUint8RequantS2(const DepthwiseUint8RequantRow& row);

// One output row of a uint8 max pooling (MaxPoolUint8RowKernel), 32 bytes
// at a time.
void Avx2MaxPoolUint8Row(const MaxPoolUint8Row& row);

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_AVX2_KERNELS_H_
