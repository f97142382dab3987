// AVX-512 micro-kernels. Their files are built with -mavx512f -mavx512vl
// -mavx512dq -mfma, so they are only called after cpu_features.h has found
// those and OS support for the ZMM state; see mace/ops/cpu/kernel_table.cc.
#ifndef MACE_OPS_X86_AVX512_KERNELS_H_
#define MACE_OPS_X86_AVX512_KERNELS_H_

#include "mace/ops/cpu/micro_kernels.h"
#include "mace/ops/cpu/quantized_micro_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

// The GEMM tile: 8 rows x 32 columns, 16 accumulators (see sgemm_avx512.cc
// for why not a taller tile).
constexpr int kAvx512GemmMr = 8;
constexpr int kAvx512GemmNr = 32;
void Avx512Gemm8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                    const TileEpilogue& epilogue);
// The same tile with A read in place, rows lda apart (GemmDirectAMicroKernel).
void Avx512Gemm8x32DirectA(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                           int64_t ldc, const TileEpilogue& epilogue);

// Partial 8 x 32 tiles (GemmPartialMicroKernel): all 32 columns on the
// 8 x 32 tile over the tile's rows, else with masked loads and stores:
// whole 16-column vectors, and a tail under 8 columns one column at a time,
// so a tile's multiply-adds follow its columns.
void Avx512GemmPartial8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                           int rows, int cols, const TileEpilogue& epilogue);

// 8 x 32 tiles of a direct convolution (ConvRowsMicroKernel).
void Avx512ConvRows8x32(int64_t kc, const float* a, const float* base, const int64_t* offsets,
                        float* c, int64_t ldc, int rows, int cols, const TileEpilogue& epilogue);

// Runs `iterations` rounds of independent FMAs; returns the flops done and
// writes a result to sink[0..7] (as the AVX2 loop does) so the work cannot be
// elided.
int64_t Avx512FmaPeak(int64_t iterations, float* sink);

// Channel-blocked convolution and window runs (cpu/blocked_kernels.inc).
void Avx512BlockedConv(const BlockedConvRun& run);
void Avx512BlockedPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst);
// Activations to and from channel blocks by register transposes
// (channel_blocks_avx512.cc).
void Avx512ChannelPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst);
void Avx512ChannelUnpack(const float* src, int lanes, int64_t count, float* dst, int64_t stride);
void Avx512BlockedWindow(const BlockedWindowRun& run);
void Avx512BlockedWinogradInput(const BlockedWinogradInputRun& run);
void Avx512BlockedWinogradOutput(const BlockedWinogradOutputRun& run);

void Avx512WinogradInput(const WinogradInputRun& run);
void Avx512WinogradOutput(const WinogradOutputRun& run);
void Avx512WinogradFilter(const float* g, int tile, float* u);
bool Avx512PanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out);

// 3x3 depthwise bands (DepthwiseBandKernel) at horizontal stride 1 and 2,
// 16 outputs per vector.
void Avx512Depthwise3x3S1(const DepthwiseBand& band);
void Avx512Depthwise3x3S2(const DepthwiseBand& band);

// uint8 max pooling rows (MaxPoolUint8RowKernel), 64 bytes per step; needs
// AVX-512 BW and VBMI.
void Avx512MaxPoolUint8Row(const MaxPoolUint8Row& row);

// The uint8 GEMM's output step (RequantizeRowKernel), 16 values at a time
// with a masked tail.
void Avx512RequantizeRow(const RequantizeRow& row);

// float to uint8 (QuantizeUint8Kernel), 16 values at a time in double, the
// tail under a mask.
void Avx512EltwiseUint8Table(const uint8_t* table, const uint8_t* in0, const uint8_t* in1,
                             int64_t count, uint8_t* out);
void Avx512QuantizeUint8(const float* in, int64_t count, float scale, int32_t zero_point,
                         uint8_t* out);

// The uint8 GEMM on kQuantQuadsUint8 words with AVX-512 VNNI (only where the
// CPU has it; the functions add the VNNI target to this file's flags):
// QuantizedGemmKernel, and QuantizedGemmRequantKernel with the output step
// of Avx512RequantizeRow applied to the accumulators in registers.
void VnniQuantizedGemv(const int8_t* w, const uint8_t* x, int64_t rows, int64_t depth,
                       int32_t* sums);
void VnniQuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                       int64_t cols, int32_t* c);
void VnniQuantizedGemmRequant(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                              int64_t cols, const RequantizeTile& tile);

// The implicit-GEMM uint8 convolution (QuantizedConvTapsKernel) with VNNI,
// and its input packing (QuantizedQuadPackKernel, AVX-512 F).
void VnniQuantizedConvTaps(const QuantizedConvTaps& conv);
void Avx512QuantizedQuadPack(const uint8_t* const* rows, int64_t step, int64_t count,
                             int32_t* dst);
// The same with AVX-512 BW and VBMI byte permutes at steps 1 and 2.
void VbmiQuantizedQuadPack(const uint8_t* const* rows, int64_t step, int64_t count,
                           int32_t* dst);

// Rows of a 3x3 uint8 depthwise convolution (DepthwiseUint8RowKernel) on
// vpmaddwd, by horizontal stride. They need AVX-512 BW besides the flags
// above (kernel_table.cc checks it).
void Avx512DepthwiseUint8S1(const DepthwiseUint8Row& row);
void Avx512DepthwiseUint8S2(const DepthwiseUint8Row& row);
void Avx512DepthwiseUint8RequantS1(const DepthwiseUint8RequantRow& row);
void Avx512DepthwiseUint8RequantS2(const DepthwiseUint8RequantRow& row);

// A 3x3 uint8 depthwise convolution on blocks of 16 interleaved channels
// (DepthwiseUint8BlockKernel) with vpdpbusd; needs AVX-512 BW and VNNI. Its
// transposes are SSE byte unpacks.
void VnniDepthwiseUint8Block(const DepthwiseUint8Block& block);
// The same with AVX-512 VBMI byte permutes for the transposes.
void VbmiDepthwiseUint8Block(const DepthwiseUint8Block& block);
// The planar form (DepthwiseUint8PlanarKernel); needs AVX-512 BW, VNNI
// and VBMI.
void VbmiDepthwiseUint8Planar(const DepthwiseUint8Planar& planar);

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_AVX512_KERNELS_H_
