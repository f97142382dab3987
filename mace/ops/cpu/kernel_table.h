// The per-ISA kernel families, listed once. Drivers (GEMM, convolution) are
// device-neutral and call the micro-kernels through a table; ops pick the
// table in Prepare and fall back to the reference kernels when there is none.
#ifndef MACE_OPS_CPU_KERNEL_TABLE_H_
#define MACE_OPS_CPU_KERNEL_TABLE_H_

#include "mace/ops/cpu/micro_kernels.h"
#include "mace/ops/cpu/quantized_micro_kernels.h"
#include "mace/ops/cpu/winograd_kernels.h"
#include "mace/runtimes/cpu/cpu_features.h"

namespace mace {
namespace ops {

// Kernel families, each a struct filled once per instruction set from the
// detected CPU features (KernelTableFor). A family's fields come from one
// list, X(type, field, initial value); the port fills a family in one file
// of its own (PortFill<Family> in cpu/kernel_tables.h; the files are the
// CPU_KERNEL_FAMILIES of mace/ops/BUILD.bazel), and a build may leave a
// family out (model-specific libraries, see model_specific_library.md):
// its fields then keep their initial values and the ops take the other
// kernels or the reference ones. A null function pointer always means "not
// in this table": every driver checks the fields it reads.

// Peak multiply-add loop for benchmarks: returns the flops done and writes
// 8 floats to `sink`.
using FmaPeakKernel = int64_t (*)(int64_t iterations, float* sink);

// GEMM: the micro-tile (mr x nr) and cache blocks (an A block mc x kc stays
// in L2, a B micro-panel kc x nr in L1, a B block kc x nc in L2/L3) and:
//   gemm               the tile
//   gemm_direct_a      optional: the tile with A read in place from rows
//                      of adjacent depth (FullyConnected's and MatMul's
//                      activations), which then are not packed
//   gemm_prefetches_a  whether `gemm` reads TileEpilogue::prefetch_a; the
//                      driver otherwise prefetches weight panels itself, in a
//                      burst before the tile
//   panel_dot          matrix times vector
//   gemm_partial       optional: partial tiles in place (masked); without it
//                      they are computed into a staging tile and copied out
//   gemm_run           optional: a run of full tiles along a row or a column
//   gemm_narrow_pair   optional: two row panels by 4 columns in one call
//   conv_rows          optional: tiles whose B rows are read in place from a
//                      padded input (direct convolution of shallow
//                      reductions, such as a network's stem)
//   conv_rows_stepped  optional: conv_rows with the B rows walked by steps,
//                      computed once by the direct convolution
//   mac_lanes          float multiply-adds per cycle one core issues with
//                      these vectors: two FMA pipes of their width (16 for
//                      AVX2, 32 for AVX-512, 16 where AVX-512 runs on 256-bit
//                      units, 8 for NEON as on Cortex-A76 class cores); rules
//                      weighing arithmetic against memory traffic scale with
//                      it (BlockedWinograd::PickTile)
//   fma_peak           the peak multiply-add loop, for benchmarks
#define MACE_GEMM_KERNELS(X)                                  \
  X(int, mr, 0)                                               \
  X(int, nr, 0)                                               \
  X(int, mc, 0)                                               \
  X(int, kc, 0)                                               \
  X(int, nc, 0)                                               \
  X(GemmMicroKernel, gemm, nullptr)                           \
  X(GemmDirectAMicroKernel, gemm_direct_a, nullptr)           \
  X(bool, gemm_prefetches_a, false)                           \
  X(PanelDotKernel, panel_dot, nullptr)                       \
  X(GemmPartialMicroKernel, gemm_partial, nullptr)            \
  X(GemmRunMicroKernel, gemm_run, nullptr)                    \
  X(GemmNarrowPairMicroKernel, gemm_narrow_pair, nullptr)     \
  X(ConvRowsMicroKernel, conv_rows, nullptr)                  \
  X(ConvRowsSteppedMicroKernel, conv_rows_stepped, nullptr)   \
  X(int32_t, mac_lanes, 0)                                    \
  X(FmaPeakKernel, fma_peak, nullptr)

// Rows: pooling's 2x2 / 3x3 window bands and global pooling planes, and
// Eltwise rows (two vectors, or a vector and a scalar).
#define MACE_ROW_KERNELS(X)                \
  X(PoolingBandKernel, pooling, nullptr)   \
  X(PlaneReduceKernel, plane_sum, nullptr) \
  X(PlaneReduceKernel, plane_max, nullptr) \
  X(EltwiseRowKernel, eltwise, nullptr)

// Depthwise: 3x3 bands by horizontal stride.
#define MACE_DEPTHWISE_KERNELS(X)                  \
  X(DepthwiseBandKernel, depthwise3x3_s1, nullptr) \
  X(DepthwiseBandKernel, depthwise3x3_s2, nullptr)

// Winograd F(2x2), F(4x4) and F(6x6) input and output transforms, and:
//   winograd_max_tile  the largest tile the cost model may pick; every
//                      table's transforms run F(6x6) correctly, but only
//                      NEON's have F(6x6) runs written for its registers (the
//                      portable 16-lane ones regroup its stride-6 taps
//                      through memory)
//   winograd_filter    optional: the filter transform, vectorized
//                      (WinogradTransformFilters in plain C++ without it)
// and, optional, kernels the driver (conv_2d_winograd.cc) runs instead of
// the table's (winograd_kernels.h):
//   winograd_input_channels, winograd_output_channels  the transforms for
//                      every channel of a run of tiles in one call
//   winograd_position_gemms  the single-precision products at every
//                      position in one call (a table with gemm_narrow_pair)
//   winograd_partial_reads_vectors  whether gemm_partial reads B only up to
//                      a whole vector of 4 columns past the last one asked
//   winograd_run_6x4, winograd_run_12x4, winograd_run_6x8_on_panels,
//   winograd_tile_6x1  runs on a last panel of at most 4 tiles and on B in
//                      4-wide panels, for a table with gemm_run and 6 x 8
//                      tiles
#define MACE_WINOGRAD_KERNELS(X)                                          \
  X(WinogradInputKernel, winograd_input, nullptr)                         \
  X(WinogradOutputKernel, winograd_output, nullptr)                       \
  X(int32_t, winograd_max_tile, 4)                                        \
  X(WinogradFilterKernel, winograd_filter, nullptr)                       \
  X(WinogradInputChannelsKernel, winograd_input_channels, nullptr)        \
  X(WinogradOutputChannelsKernel, winograd_output_channels, nullptr)      \
  X(WinogradGemmsKernel, winograd_position_gemms, nullptr)                \
  X(bool, winograd_partial_reads_vectors, false)                          \
  X(WinogradRun6x4Kernel, winograd_run_6x4, nullptr)                      \
  X(WinogradRun12x4Kernel, winograd_run_12x4, nullptr)                    \
  X(WinogradRun6x8OnPanelsKernel, winograd_run_6x8_on_panels, nullptr)    \
  X(WinogradTile6x1Kernel, winograd_tile_6x1, nullptr)

// Channel-blocked ("NCHWc") kernels; channel_block is 0 where there are none.
//   blocked_layout_pays  whether the net uses the blocked layout by default:
//                        on x86 it is measured faster; on NEON qemu counts
//                        more instructions per inference with it (see
//                        docs/design/cpu_runtime.md), so it waits for phones
//   blocked_conv_blocks  output blocks blocked_conv runs at once
//   blocked_window_conv_blocks  output blocks per tile for windows of more
//                        than one tap, strided 1x1s and 1x1s on maps of at
//                        least 128 positions (0: blocked_conv_blocks).
//                        AVX-512 runs 4 blocks x 6 positions there (stems and
//                        strided 3x3 were 10-30 % faster in BM_ConvLayout,
//                        MobileNet v1's 1x1s from 14x14 up 3-8 %), but keeps
//                        3 x 8 for 1x1s on smaller maps (7x7: 4 % faster) and
//                        Winograd's products (4 blocks were 20 % slower in
//                        ResNet-18, up to 30 % in BM_ConvLayout). AVX2
//                        runs 3 blocks x 4 positions there (each input
//                        value serves 24 output channels, not 16) and
//                        2 x 6 elsewhere (with 3 everywhere ResNet-18's
//                        Winograd products were 3 % slower). See
//                        GroupBlocks in conv_2d_blocked.cc.
//   blocked_pack         optional: the filter relayout BlockedConv2d does at
//                        engine creation, vectorized (a scalar loop without)
//   channel_pack, channel_unpack  optional: activations between plain rows
//                        and channel blocks (the layout's conversions) as
//                        register transposes; the same packing as
//                        blocked_pack and its inverse (scalar loops without)
//   blocked_l3_bytes     the host's last-level cache in bytes where the port
//                        reads it (0: unknown), for the blocked Winograd's
//                        cost model (BlockedWinograd::PickTile)
//   blocked_l1d_bytes    the host's L1 data cache in bytes where the port
//                        reads it (0: unknown), for the reduction parts of
//                        BlockedConv2d's windows
#define MACE_BLOCKED_KERNELS(X)                                    \
  X(int32_t, channel_block, 0)                                     \
  X(bool, blocked_layout_pays, false)                              \
  X(int32_t, blocked_conv_blocks, 0)                               \
  X(int32_t, blocked_window_conv_blocks, 0)                        \
  X(BlockedConvKernel, blocked_conv, nullptr)                      \
  X(BlockedPackKernel, blocked_pack, nullptr)                      \
  X(BlockedPackKernel, channel_pack, nullptr)                      \
  X(BlockedUnpackKernel, channel_unpack, nullptr)                  \
  X(BlockedWindowKernel, blocked_window, nullptr)                  \
  X(BlockedWinogradInputKernel, blocked_winograd_input, nullptr)   \
  X(BlockedWinogradOutputKernel, blocked_winograd_output, nullptr) \
  X(int64_t, blocked_l3_bytes, 0)                                  \
  X(int64_t, blocked_l1d_bytes, 0)

// uint8 (quantized_micro_kernels.h); quantized_gemm is null where there is
// none, and the uint8 ops then run the reference kernels. Every other entry
// is optional, with a portable or reference path without it:
//   quantized_gemm, quantized_format  the GEMM and the word format it reads
//   requantize_row           its output step, vectorized
//   quantized_gemm_requant   the GEMM and its output step in one pass
//   quantized_conv_taps, quantized_quad_pack  the implicit-GEMM convolution
//                            on quads of channels and its input packing
//   quantized_gemv           the matrix-vector product (FullyConnected at
//                            batch 1)
//   eltwise_uint8_table      Eltwise's table lookups of two full inputs
//   quantize_uint8           float to uint8 (the Quantize op)
//   depthwise3x3_uint8_s1/s2  rows of a 3x3 depthwise conv by stride
//   max_pool_uint8_row       rows of a max pooling
//   depthwise3x3_uint8_requant_s1/s2  the rows with the output step fused
//   depthwise3x3_uint8_block  3x3 depthwise on blocks of channels
//                            (multiplier 1, int8 taps, strides 1 and 2)
//   depthwise3x3_uint8_planar  the same on small planes in place, with byte
//                            permutes
#define MACE_UINT8_KERNELS(X)                                                 \
  X(QuantizedGemmKernel, quantized_gemm, nullptr)                             \
  X(QuantGemmFormat, quantized_format, kQuantPairsInt16)                      \
  X(RequantizeRowKernel, requantize_row, nullptr)                             \
  X(QuantizedGemmRequantKernel, quantized_gemm_requant, nullptr)              \
  X(QuantizedConvTapsKernel, quantized_conv_taps, nullptr)                    \
  X(QuantizedQuadPackKernel, quantized_quad_pack, nullptr)                    \
  X(QuantizedGemvKernel, quantized_gemv, nullptr)                             \
  X(EltwiseUint8TableKernel, eltwise_uint8_table, nullptr)                    \
  X(QuantizeUint8Kernel, quantize_uint8, nullptr)                             \
  X(DepthwiseUint8RowKernel, depthwise3x3_uint8_s1, nullptr)                  \
  X(DepthwiseUint8RowKernel, depthwise3x3_uint8_s2, nullptr)                  \
  X(MaxPoolUint8RowKernel, max_pool_uint8_row, nullptr)                       \
  X(DepthwiseUint8RequantRowKernel, depthwise3x3_uint8_requant_s1, nullptr)   \
  X(DepthwiseUint8RequantRowKernel, depthwise3x3_uint8_requant_s2, nullptr)   \
  X(DepthwiseUint8BlockKernel, depthwise3x3_uint8_block, nullptr)             \
  X(DepthwiseUint8PlanarKernel, depthwise3x3_uint8_planar, nullptr)

// Half-precision arithmetic (ARMv8.2 FP16), only in the tables
// Fp16KernelTableFor returns (fp16_table_name names them); ops whose table
// has fp16_gemm run Conv2D (GEMM) and FullyConnected in half precision:
//   fp16_mr, fp16_nr, fp16_kc, fp16_gemm  the GEMM tile (panels in half
//                        precision, C in single precision)
//   fp16_panel_dot       the matrix-vector product of one fp16_mr-row panel
//   fp16_from_float      float to half
//   fp16_pack_columns    one fp16_nr-wide B panel from float rows (columns
//                        adjacent), packed and converted in one pass
//   fp16_depthwise3x3_s1/s2  3x3 depthwise bands whose padded input holds
//                        halves, by horizontal stride
//   fp16_depthwise3x3_packed  optional: the same on small half planes, 8
//                        channels at a time as vector lanes
// For tensors kept in half precision between ops (Storage::Plain(DT_HALF)):
//   fp16_gemm_half       the tile writing C as halves
//   fp16_gemm_half_rows  optional: fp16_gemm_half over whole tiles down one
//                        B panel (A's panels a_stride halves apart)
//   fp16_gemm_half_positions  optional: Winograd's products of one panel of
//                        tiles for every position in one call
//   fp16_pack_half_columns  B panels packed from half rows
//   fp16_to_float, fp16_add  half to float, and the half sum
//   fp16_winograd_input/output  Winograd's transforms in half precision,
//                        eight tiles at a time: the input one into half B
//                        panels, the output one from half products M
//   fp16_winograd_half_input/output  the same on half tensors: input rows
//                        of halves (run.rows is not read), an output plane
//                        of halves (run.plane is not read)
//   fp16_winograd_half_output_from_floats  the same from M of floats at
//                        run.in, rounded to half as it is read
using Fp16GemmKernel = void (*)(int64_t kc, const uint16_t* a, const uint16_t* b, float* c,
                                int64_t ldc, int rows, int cols, const TileEpilogue& epilogue);
using Fp16PanelDotKernel = void (*)(const uint16_t* panel, int64_t depth, const uint16_t* x,
                                    float* out);
using Fp16FromFloatKernel = void (*)(const float* src, int64_t count, uint16_t* dst);
using Fp16PackColumnsKernel = void (*)(const float* src, int64_t cols, int64_t depth,
                                       int64_t depth_stride, uint16_t* dst);
using Fp16GemmHalfKernel = void (*)(int64_t kc, const uint16_t* a, const uint16_t* b,
                                    uint16_t* c, int64_t ldc, int rows, int cols,
                                    const TileEpilogue& epilogue);
using Fp16GemmHalfRowsKernel = void (*)(int64_t kc, const uint16_t* a, int64_t a_stride,
                                        const uint16_t* b, uint16_t* c, int64_t ldc,
                                        int64_t panels, const TileEpilogue& epilogue);
using Fp16GemmHalfPositionsKernel = void (*)(int64_t kc, const uint16_t* const* a,
                                             int64_t a_offset, const uint16_t* b,
                                             int64_t b_stride, uint16_t* c, int64_t c_stride,
                                             int64_t ldc, int64_t positions, int64_t panels,
                                             int cols);
using Fp16PackHalfColumnsKernel = void (*)(const uint16_t* src, int64_t cols, int64_t depth,
                                           int64_t depth_stride, uint16_t* dst);
using Fp16ToFloatKernel = void (*)(const uint16_t* src, int64_t count, float* dst);
using Fp16AddKernel = void (*)(const uint16_t* a, const uint16_t* b, int64_t count,
                               uint16_t* dst);
using Fp16WinogradInputKernel = void (*)(const WinogradInputRun& run, uint16_t* out);
using Fp16WinogradOutputKernel = void (*)(const WinogradOutputRun& run, const uint16_t* m);
using Fp16WinogradHalfInputKernel = void (*)(const WinogradInputRun& run,
                                             const uint16_t* const* rows, uint16_t* out);
using Fp16WinogradHalfOutputKernel = void (*)(const WinogradOutputRun& run, const uint16_t* m,
                                              uint16_t* plane);
using Fp16WinogradHalfOutputFromFloatsKernel = void (*)(const WinogradOutputRun& run,
                                                        uint16_t* plane);

#define MACE_FP16_KERNELS(X)                                                              \
  X(const char*, fp16_table_name, nullptr)                                                \
  X(int, fp16_mr, 0)                                                                      \
  X(int, fp16_nr, 0)                                                                      \
  X(int, fp16_kc, 0)                                                                      \
  X(Fp16GemmKernel, fp16_gemm, nullptr)                                                   \
  X(Fp16PanelDotKernel, fp16_panel_dot, nullptr)                                          \
  X(Fp16FromFloatKernel, fp16_from_float, nullptr)                                        \
  X(Fp16PackColumnsKernel, fp16_pack_columns, nullptr)                                    \
  X(DepthwiseBandKernel, fp16_depthwise3x3_s1, nullptr)                                   \
  X(DepthwiseBandKernel, fp16_depthwise3x3_s2, nullptr)                                   \
  X(DepthwisePackedKernel, fp16_depthwise3x3_packed, nullptr)                             \
  X(Fp16GemmHalfKernel, fp16_gemm_half, nullptr)                                          \
  X(Fp16GemmHalfRowsKernel, fp16_gemm_half_rows, nullptr)                                 \
  X(Fp16GemmHalfPositionsKernel, fp16_gemm_half_positions, nullptr)                       \
  X(Fp16PackHalfColumnsKernel, fp16_pack_half_columns, nullptr)                           \
  X(Fp16ToFloatKernel, fp16_to_float, nullptr)                                            \
  X(Fp16AddKernel, fp16_add, nullptr)                                                     \
  X(Fp16WinogradInputKernel, fp16_winograd_input, nullptr)                                \
  X(Fp16WinogradOutputKernel, fp16_winograd_output, nullptr)                              \
  X(Fp16WinogradHalfInputKernel, fp16_winograd_half_input, nullptr)                       \
  X(Fp16WinogradHalfOutputKernel, fp16_winograd_half_output, nullptr)                     \
  X(Fp16WinogradHalfOutputFromFloatsKernel, fp16_winograd_half_output_from_floats, nullptr)

// The families, listed once: X(family, Struct, fields list, whether the
// plain tables have it). `family` names the family in the port's fill
// function (PortFill<Struct>), in the build's family list and in
// KernelFamilyPresent. fp16 is only in the tables of Fp16KernelTableFor.
#define MACE_CPU_KERNEL_FAMILIES(X)                        \
  X(gemm, GemmKernels, MACE_GEMM_KERNELS, true)            \
  X(rows, RowKernels, MACE_ROW_KERNELS, true)              \
  X(depthwise, DepthwiseKernels, MACE_DEPTHWISE_KERNELS, true) \
  X(winograd, WinogradKernels, MACE_WINOGRAD_KERNELS, true) \
  X(blocked, BlockedKernels, MACE_BLOCKED_KERNELS, true)   \
  X(uint8, Uint8Kernels, MACE_UINT8_KERNELS, true)         \
  X(fp16, Fp16Kernels, MACE_FP16_KERNELS, false)

#define MACE_KERNEL_FAMILY_FIELD(Type, field, initial) Type field = initial;
#define MACE_KERNEL_FAMILY_STRUCT(family, Struct, LIST, plain) \
  struct Struct {                                              \
    LIST(MACE_KERNEL_FAMILY_FIELD)                             \
  };
MACE_CPU_KERNEL_FAMILIES(MACE_KERNEL_FAMILY_STRUCT)
#undef MACE_KERNEL_FAMILY_STRUCT
#undef MACE_KERNEL_FAMILY_FIELD

// One instruction set's kernels: every family, each as its own base, so
// that a driver reads table->gemm or table->blocked_conv alike.
struct KernelTable : GemmKernels,
                     RowKernels,
                     DepthwiseKernels,
                     WinogradKernels,
                     BlockedKernels,
                     Uint8Kernels,
                     Fp16Kernels {
  KernelIsa isa = KernelIsa::kReference;
  const char* name = "ref";
  // Bit f: the port filled KernelFamily f (KernelFamilyPresent).
  uint32_t families = 0;
};

enum class KernelFamily {
#define MACE_KERNEL_FAMILY_ENUM(family, Struct, LIST, plain) family,
  MACE_CPU_KERNEL_FAMILIES(MACE_KERNEL_FAMILY_ENUM)
#undef MACE_KERNEL_FAMILY_ENUM
};

// The family's name ("gemm", "blocked", ...).
const char* KernelFamilyName(KernelFamily family);

// Whether the port filled `family` in `table`: this build links it and the
// CPU runs it (a model-specific library may leave families out).
bool KernelFamilyPresent(const KernelTable& table, KernelFamily family);

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
