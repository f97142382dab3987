// The per-ISA kernel families, listed once. Drivers (GEMM, convolution) are
// device-neutral and call the micro-kernels through a table; ops pick the
// table in Prepare and fall back to the reference kernels when there is none.
#ifndef MACE_OPS_CPU_KERNEL_TABLE_H_
#define MACE_OPS_CPU_KERNEL_TABLE_H_

#include "mace/ops/cpu/micro_kernels.h"
#include "mace/ops/cpu/quantized_micro_kernels.h"
#include "mace/runtimes/cpu/cpu_features.h"

namespace mace {
namespace ops {

struct KernelTable {
  KernelIsa isa = KernelIsa::kReference;
  const char* name = "ref";
  // GEMM micro-tile and cache blocks. An A block (mc x kc) stays in L2, a B
  // micro-panel (kc x nr) in L1, and a B block (kc x nc) in L2/L3.
  int mr = 0, nr = 0;
  int mc = 0, kc = 0, nc = 0;
  GemmMicroKernel gemm = nullptr;
  // Whether `gemm` reads TileEpilogue::prefetch_a. The driver otherwise
  // prefetches weight panels itself, in a burst before the tile.
  bool gemm_prefetches_a = false;
  PanelDotKernel panel_dot = nullptr;  // matrix times vector
  // Optional: partial tiles in place (masked). Without it they are computed
  // into a staging tile and copied out.
  GemmPartialMicroKernel gemm_partial = nullptr;
  // Optional: a run of full tiles along a row or a column of C in one call.
  GemmRunMicroKernel gemm_run = nullptr;
  // Optional: two row panels by 4 columns in one call (GemmNarrowPairMicroKernel).
  GemmNarrowPairMicroKernel gemm_narrow_pair = nullptr;
  // Optional: GEMM tiles whose B rows are read in place from a padded input
  // (direct convolution of shallow reductions, such as a network's stem).
  ConvRowsMicroKernel conv_rows = nullptr;
  // Optional: conv_rows' product with the B rows walked by steps; a direct
  // convolution that finds it computes its steps once and calls it.
  ConvRowsSteppedMicroKernel conv_rows_stepped = nullptr;
  DepthwiseBandKernel depthwise3x3_s1 = nullptr;  // by horizontal stride
  DepthwiseBandKernel depthwise3x3_s2 = nullptr;
  // Pooling: 2x2 / 3x3 window bands, and global pooling planes.
  PoolingBandKernel pooling = nullptr;
  PlaneReduceKernel plane_sum = nullptr;
  PlaneReduceKernel plane_max = nullptr;
  // Eltwise rows (two vectors, or a vector and a scalar).
  EltwiseRowKernel eltwise = nullptr;
  // Winograd F(2x2), F(4x4) and F(6x6) input and output transforms.
  WinogradInputKernel winograd_input = nullptr;
  WinogradOutputKernel winograd_output = nullptr;
  // The largest tile the cost model may pick with these kernels. Every
  // table's transforms run F(6x6) correctly, but only NEON's have F(6x6)
  // runs written for its registers; the portable 16-lane ones regroup its
  // stride-6 taps through memory.
  int32_t winograd_max_tile = 4;
  // Optional: the filter transform, vectorized (WinogradTransformFilters,
  // in plain C++, where there is none).
  WinogradFilterKernel winograd_filter = nullptr;
  // Channel-blocked ("NCHWc") kernels; channel_block is 0 where there are
  // none. blocked_conv runs up to blocked_conv_blocks output blocks at once.
  int32_t channel_block = 0;
  // Whether the net uses the blocked layout by default with this table: on
  // x86 it is measured faster; on NEON, qemu counts more instructions per
  // inference with it (see docs/design/cpu_runtime.md), so it waits for phones.
  bool blocked_layout_pays = false;
  int32_t blocked_conv_blocks = 0;
  // Output blocks per blocked_conv tile for windows of more than one tap,
  // strided 1x1s and 1x1s on maps of at least 128 positions (0:
  // blocked_conv_blocks). AVX-512 runs 4 blocks x 6 positions there (stems
  // and strided 3x3 were 10-30 % faster in BM_ConvLayout, MobileNet v1's 1x1s
  // from 14x14 up 3-8 %), but keeps 3 x 8 for 1x1s on smaller maps (7x7: 4 %
  // faster) and Winograd's products (4 blocks were 20 % slower in ResNet-18,
  // up to 30 % in BM_ConvLayout). See GroupBlocks in conv_2d_blocked.cc.
  int32_t blocked_window_conv_blocks = 0;
  BlockedConvKernel blocked_conv = nullptr;
  // Optional: the filter relayout BlockedConv2d does at engine creation,
  // vectorized (a scalar loop where there is none).
  BlockedPackKernel blocked_pack = nullptr;
  // Optional: activations between plain rows and channel blocks (the
  // blocked layout's conversions), as register transposes; the same
  // packing as blocked_pack, and its inverse (scalar loops where there are
  // none).
  BlockedPackKernel channel_pack = nullptr;
  BlockedUnpackKernel channel_unpack = nullptr;
  BlockedWindowKernel blocked_window = nullptr;
  BlockedWinogradInputKernel blocked_winograd_input = nullptr;
  BlockedWinogradOutputKernel blocked_winograd_output = nullptr;
  // The uint8 GEMM and the word format it reads (quantized_micro_kernels.h);
  // null where there is none (the uint8 ops then run the reference kernels).
  QuantizedGemmKernel quantized_gemm = nullptr;
  QuantGemmFormat quantized_format = kQuantPairsInt16;
  // Its output step, vectorized (optional: the driver has a scalar loop).
  RequantizeRowKernel requantize_row = nullptr;
  // The GEMM and its output step in one pass, for the same word format
  // (optional: the driver then runs quantized_gemm and requantize_row).
  QuantizedGemmRequantKernel quantized_gemm_requant = nullptr;
  // The implicit-GEMM uint8 convolution on quads of channels and its input
  // packing (optional: Conv2D then runs on the GEMM above).
  QuantizedConvTapsKernel quantized_conv_taps = nullptr;
  QuantizedQuadPackKernel quantized_quad_pack = nullptr;
  // The uint8 x int8 matrix-vector product (optional: FullyConnected at
  // batch 1 then runs on the GEMM).
  QuantizedGemvKernel quantized_gemv = nullptr;
  // The uint8 Eltwise's table lookups of two full inputs (optional: a
  // scalar loop runs without).
  EltwiseUint8TableKernel eltwise_uint8_table = nullptr;
  // float to uint8 (the Quantize op; optional: the reference runs without).
  QuantizeUint8Kernel quantize_uint8 = nullptr;
  // Rows of a 3x3 uint8 depthwise convolution by horizontal stride
  // (optional: the reference kernel runs without them).
  DepthwiseUint8RowKernel depthwise3x3_uint8_s1 = nullptr;
  DepthwiseUint8RowKernel depthwise3x3_uint8_s2 = nullptr;
  // Rows of a uint8 max pooling (optional: the portable separable kernel
  // runs without it).
  MaxPoolUint8RowKernel max_pool_uint8_row = nullptr;
  // The same rows with the output step fused, for the same strides
  // (optional: the driver then runs the rows above and requantize_row).
  DepthwiseUint8RequantRowKernel depthwise3x3_uint8_requant_s1 = nullptr;
  DepthwiseUint8RequantRowKernel depthwise3x3_uint8_requant_s2 = nullptr;
  // 3x3 uint8 depthwise on blocks of channels (multiplier 1, int8 taps,
  // strides 1 and 2; optional: the rows above run without it).
  DepthwiseUint8BlockKernel depthwise3x3_uint8_block = nullptr;
  // The same on small planes in place, with byte permutes (optional: the
  // blocked kernel or the rows run without it).
  DepthwiseUint8PlanarKernel depthwise3x3_uint8_planar = nullptr;
  // Half-precision arithmetic (ARMv8.2 FP16), set only in the table
  // Fp16KernelTableFor returns: the GEMM tile (fp16_mr x fp16_nr, panels in
  // half precision, C in single precision), the matrix-vector product of one
  // fp16_mr-row panel, and the float to half conversion. Ops whose table has
  // them run Conv2D (GEMM) and FullyConnected in half precision.
  int fp16_mr = 0, fp16_nr = 0, fp16_kc = 0;
  void (*fp16_gemm)(int64_t kc, const uint16_t* a, const uint16_t* b, float* c, int64_t ldc,
                    int rows, int cols, const TileEpilogue& epilogue) = nullptr;
  void (*fp16_panel_dot)(const uint16_t* panel, int64_t depth, const uint16_t* x,
                         float* out) = nullptr;
  void (*fp16_from_float)(const float* src, int64_t count, uint16_t* dst) = nullptr;
  // One fp16_nr-wide B panel from float rows (columns adjacent), packed and
  // converted in one pass (see arm/fp16_neon_kernels.h).
  void (*fp16_pack_columns)(const float* src, int64_t cols, int64_t depth, int64_t depth_stride,
                            uint16_t* dst) = nullptr;
  // 3x3 depthwise bands whose padded input holds half values (see
  // arm/fp16_neon_kernels.h), by horizontal stride.
  DepthwiseBandKernel fp16_depthwise3x3_s1 = nullptr;
  DepthwiseBandKernel fp16_depthwise3x3_s2 = nullptr;
  // The same on small half planes, 8 channels at a time as vector lanes
  // (optional: the bands run without it).
  DepthwisePackedKernel fp16_depthwise3x3_packed = nullptr;
  // For tensors kept in half precision between ops (Storage::Plain(DT_HALF)):
  // the tile writing C as halves, B panels packed from half rows, the half
  // to float conversion and the half sum.
  void (*fp16_gemm_half)(int64_t kc, const uint16_t* a, const uint16_t* b, uint16_t* c,
                         int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) = nullptr;
  // fp16_gemm_half over `panels` whole tiles down one B panel (A's panels
  // a_stride halves apart; optional: the tiles run one by one without it).
  void (*fp16_gemm_half_rows)(int64_t kc, const uint16_t* a, int64_t a_stride,
                              const uint16_t* b, uint16_t* c, int64_t ldc, int64_t panels,
                              const TileEpilogue& epilogue) = nullptr;
  // Winograd's products of one panel of tiles for every position in one
  // call (see arm::Fp16GemmHalfPositions; optional: fp16_gemm_half one
  // tile at a time without it).
  void (*fp16_gemm_half_positions)(int64_t kc, const uint16_t* const* a, int64_t a_offset,
                                   const uint16_t* b, int64_t b_stride, uint16_t* c,
                                   int64_t c_stride, int64_t ldc, int64_t positions,
                                   int64_t panels, int cols) = nullptr;
  void (*fp16_pack_half_columns)(const uint16_t* src, int64_t cols, int64_t depth,
                                 int64_t depth_stride, uint16_t* dst) = nullptr;
  void (*fp16_to_float)(const uint16_t* src, int64_t count, float* dst) = nullptr;
  void (*fp16_add)(const uint16_t* a, const uint16_t* b, int64_t count, uint16_t* dst) = nullptr;
  // Winograd's transforms in half precision, eight tiles at a time (see
  // arm/winograd_fp16_neon.h): the input one into half B panels, the
  // output one from half products M.
  void (*fp16_winograd_input)(const WinogradInputRun& run, uint16_t* out) = nullptr;
  void (*fp16_winograd_output)(const WinogradOutputRun& run, const uint16_t* m) = nullptr;
  // The same on half tensors: input rows of halves (run.rows is not read),
  // an output plane of halves (run.plane is not read).
  void (*fp16_winograd_half_input)(const WinogradInputRun& run, const uint16_t* const* rows,
                                   uint16_t* out) = nullptr;
  void (*fp16_winograd_half_output)(const WinogradOutputRun& run, const uint16_t* m,
                                    uint16_t* plane) = nullptr;
  // The same from M of floats at run.in, rounded to half as it is read.
  void (*fp16_winograd_half_output_from_floats)(const WinogradOutputRun& run,
                                                uint16_t* plane) = nullptr;
  // Float multiply-adds per cycle one core issues with this table's
  // vectors: two FMA pipes of its width (16 for AVX2, 32 for AVX-512, 16
  // where AVX-512 runs on 256-bit units, 8 for NEON as on Cortex-A76 class
  // cores). Rules that weigh arithmetic against memory traffic scale with
  // it (BlockedWinograd::PickTile).
  int32_t mac_lanes = 0;
  // Peak multiply-add throughput loop for benchmarks: returns flops done and
  // writes 8 floats to `sink`.
  int64_t (*fma_peak)(int64_t iterations, float* sink) = nullptr;
};

// The table for `isa`, or null for kReference and for families this build or
// CPU lacks. Every family the CPU has is available, not only the best one,
// so tests and benchmarks can compare them (AVX2 and AVX-512 on one host).
const KernelTable* KernelTableFor(KernelIsa isa);

// The table of `isa` with the half-precision kernels added, or null when
// this build or CPU has none (no ARMv8.2 FP16 arithmetic: AT_HWCAP's FPHP
// and ASIMDHP on arm64).
const KernelTable* Fp16KernelTableFor(KernelIsa isa);

// The table the ops use (ActiveKernelIsa), or null: run the reference kernels.
const KernelTable* ActiveKernelTable();

// The channel block ops offer the net for the blocked layout with `table`
// (null allowed), or 0: the table's channel_block where it has blocked
// kernels and blocked_layout_pays, or the current engine's CpuTunables ask
// for them anyway (blocked layout "on", MACE_CPU_BLOCKED_LAYOUT=1); 0 when
// they say "off".
int BlockedLayoutBlock(const KernelTable* table);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_KERNEL_TABLE_H_
