// The ARM port's kernel tables: NEON on arm64 and armv7, with the
// ARMv8.2 dot-product GEMM and the half-precision kernels on arm64 where
// the CPU has them.
#include "mace/ops/cpu/kernel_tables.h"

#include "mace/ops/arm/fp16_neon_kernels.h"
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/arm/quantized_neon_kernels.h"
#include "mace/ops/arm/winograd_fp16_neon.h"

namespace mace {
namespace ops {
namespace {

KernelTable MakeNeonTable(const CpuFeatures& features) {
  KernelTable table;
  table.isa = KernelIsa::kNeon;
  table.name = "neon";
  table.mr = arm::kNeonGemmMr;
  table.nr = arm::kNeonGemmNr;
  // Phone L1s are 32-64 KiB and L2s 256 KiB-1 MiB per core or cluster.
  table.mc = 96;
  table.kc = 256;
  table.nc = 768;
  table.gemm = arm::NeonGemm;
  table.gemm_partial = arm::NeonGemmPartial;
#if !defined(__aarch64__)
  table.gemm_run = arm::NeonGemmRun;
#endif
  table.conv_rows = arm::NeonConvRows;
#if defined(__aarch64__)
  table.conv_rows_stepped = arm::NeonConvRowsStepped;
  table.gemm_narrow_pair = arm::NeonGemmNarrowPair;
#endif
  table.panel_dot = arm::NeonPanelDot;
  table.depthwise3x3_s1 = arm::NeonDepthwise3x3S1;
  table.depthwise3x3_s2 = arm::NeonDepthwise3x3S2;
  table.pooling = arm::NeonPoolingBand;
  table.plane_sum = arm::NeonPlaneSum;
  table.plane_max = arm::NeonPlaneMax;
  table.eltwise = arm::NeonEltwiseRow;
  table.winograd_input = arm::NeonWinogradInput;
  table.winograd_output = arm::NeonWinogradOutput;
  table.winograd_max_tile = 6;
  table.fma_peak = arm::NeonFmaPeak;
  table.mac_lanes = 8;
  table.channel_block = 4;
#if defined(__aarch64__)
  table.blocked_conv_blocks = 3;
#else
  table.blocked_conv_blocks = 2;
#endif
  table.blocked_conv = arm::NeonBlockedConv;
  table.blocked_window = arm::NeonBlockedWindow;
  table.blocked_winograd_input = arm::NeonBlockedWinogradInput;
  table.blocked_winograd_output = arm::NeonBlockedWinogradOutput;
  table.quantized_gemm = arm::NeonQuantizedGemm;
  table.quantized_format = kQuantPairsInt16;
  table.requantize_row = arm::NeonRequantizeRow;
  table.depthwise3x3_uint8_s1 = arm::NeonDepthwiseUint8S1;
  table.depthwise3x3_uint8_s2 = arm::NeonDepthwiseUint8S2;
#if defined(__aarch64__)
  if (features.neon_dotprod) {
    table.quantized_gemm = arm::DotprodQuantizedGemm;
    table.quantized_format = kQuantQuadsUint8Unsigned;
  }
#else
  (void)features;
#endif
  return table;
}

}  // namespace

const KernelTable* PortKernelTable(KernelIsa isa, const CpuFeatures& features) {
  static const KernelTable neon = MakeNeonTable(features);
  return isa == KernelIsa::kNeon ? &neon : nullptr;
}

const KernelTable* PortFp16KernelTable(KernelIsa isa, const CpuFeatures& features) {
#if defined(__aarch64__)
  if (isa != KernelIsa::kNeon || !features.neon_fp16) return nullptr;
  static const KernelTable fp16 = [&features] {
    KernelTable table = *PortKernelTable(KernelIsa::kNeon, features);
    table.name = "neon_fp16";
    table.fp16_mr = arm::kFp16GemmMr;
    table.fp16_nr = arm::kFp16GemmNr;
    table.fp16_kc = 256;
    table.fp16_gemm = arm::Fp16GemmTile;
    table.fp16_panel_dot = arm::Fp16PanelDot;
    table.fp16_from_float = arm::Fp16FromFloat;
    table.fp16_pack_columns = arm::Fp16PackColumns;
    table.fp16_depthwise3x3_s1 = arm::Fp16Depthwise3x3S1;
    table.fp16_depthwise3x3_s2 = arm::Fp16Depthwise3x3S2;
    table.fp16_depthwise3x3_packed = arm::Fp16Depthwise3x3Packed;
    table.fp16_gemm_half = arm::Fp16GemmTileHalf;
    table.fp16_gemm_half_rows = arm::Fp16GemmTileHalfRows;
    table.fp16_gemm_half_positions = arm::Fp16GemmHalfPositions;
    table.fp16_pack_half_columns = arm::Fp16PackHalfColumns;
    table.fp16_to_float = arm::Fp16ToFloat;
    table.fp16_add = arm::Fp16Add;
    table.fp16_winograd_input = arm::Fp16WinogradInput;
    table.fp16_winograd_output = arm::Fp16WinogradOutput;
    table.fp16_winograd_half_input = arm::Fp16WinogradHalfInput;
    table.fp16_winograd_half_output = arm::Fp16WinogradHalfOutput;
    table.fp16_winograd_half_output_from_floats = arm::Fp16WinogradHalfOutputFromFloats;
    return table;
  }();
  return &fp16;
#else
  (void)isa;
  (void)features;
  return nullptr;
#endif
}

}  // namespace ops
}  // namespace mace
