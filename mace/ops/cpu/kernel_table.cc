#include "mace/ops/cpu/kernel_table.h"

#include "mace/runtimes/cpu/cpu_tunables.h"

#if defined(__x86_64__)
#include "mace/ops/cpu/cache_blocks.h"
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/avx512_kernels.h"
#elif defined(__aarch64__) || defined(__ARM_NEON)
#include "mace/ops/arm/fp16_neon_kernels.h"
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/arm/quantized_neon_kernels.h"
#include "mace/ops/arm/winograd_fp16_neon.h"
#endif

namespace mace {
namespace ops {
namespace {

#if defined(__x86_64__)
void SetGemmBlocks(const CacheSizes& caches, KernelTable* table) {
  const GemmBlocks blocks = DeriveGemmBlocks(table->mr, table->nr, caches);
  table->mc = blocks.mc;
  table->kc = blocks.kc;
  table->nc = blocks.nc;
}

KernelTable MakeAvx2Table() {
  KernelTable table;
  table.isa = KernelIsa::kAvx2Fma;
  table.name = "avx2_fma";
  table.mr = x86::kAvx2GemmMr;
  table.nr = x86::kAvx2GemmNr;
  // From the host's caches (cache_blocks.h): on a 32 KiB L1d / 1 MiB L2
  // core, kc 256 (a 16 KiB B micro-panel), mc 168 (168 KiB of A), nc 256.
  SetGemmBlocks(HostCacheSizes(), &table);
  table.gemm = x86::Avx2Gemm6x16;
  table.gemm_prefetches_a = true;
  table.panel_dot = x86::Avx2PanelDot;
  table.gemm_partial = x86::Avx2GemmPartial6x16;
  table.conv_rows = x86::Avx2ConvRows6x16;
  table.depthwise3x3_s1 = x86::Avx2Depthwise3x3S1;
  table.depthwise3x3_s2 = x86::Avx2Depthwise3x3S2;
  table.pooling = x86::Avx2PoolingBand;
  table.plane_sum = x86::Avx2PlaneSum;
  table.plane_max = x86::Avx2PlaneMax;
  table.eltwise = x86::Avx2EltwiseRow;
  table.winograd_input = x86::Avx2WinogradInput;
  table.winograd_output = x86::Avx2WinogradOutput;
  table.winograd_filter = x86::Avx2WinogradFilter;
  table.fma_peak = x86::Avx2FmaPeak;
  table.mac_lanes = 16;
  table.channel_block = 8;
  table.blocked_layout_pays = true;
  table.blocked_conv_blocks = 2;
  table.blocked_conv = x86::Avx2BlockedConv;
  table.blocked_pack = x86::Avx2BlockedPack;
  table.channel_pack = x86::Avx2ChannelPack;
  table.channel_unpack = x86::Avx2ChannelUnpack;
  table.blocked_window = x86::Avx2BlockedWindow;
  table.blocked_winograd_input = x86::Avx2BlockedWinogradInput;
  table.blocked_winograd_output = x86::Avx2BlockedWinogradOutput;
  table.quantized_gemm = x86::Avx2QuantizedGemm;
  table.quantized_format = kQuantPairsInt16;
  table.requantize_row = x86::Avx2RequantizeRow;
  table.quantized_gemm_requant = x86::Avx2QuantizedGemmRequant;
  table.quantize_uint8 = x86::Avx2QuantizeUint8;
  table.depthwise3x3_uint8_s1 = x86::Avx2DepthwiseUint8S1;
  table.depthwise3x3_uint8_s2 = x86::Avx2DepthwiseUint8S2;
  table.max_pool_uint8_row = x86::Avx2MaxPoolUint8Row;
  table.depthwise3x3_uint8_requant_s1 = x86::Avx2DepthwiseUint8RequantS1;
  table.depthwise3x3_uint8_requant_s2 = x86::Avx2DepthwiseUint8RequantS2;
  return table;
}

// The AVX2 table with the AVX-512 GEMM, Winograd transforms, 3x3 depthwise
// bands and uint8 output step, the uint8 depthwise rows where the CPU has
// AVX-512 BW (with VBMI, the uint8 max pooling rows too), and the VNNI uint8
// GEMM where it has VNNI: every family not rewritten for AVX-512 (the other
// pooling, eltwise) keeps its AVX2 kernel.
KernelTable MakeAvx512Table(const CpuFeatures& features) {
  KernelTable table = MakeAvx2Table();
  table.isa = KernelIsa::kAvx512;
  table.name = "avx512";
  table.mr = x86::kAvx512GemmMr;
  table.nr = x86::kAvx512GemmNr;
  // From the host's caches (cache_blocks.h). On a 48 KiB L1d / 2 MiB L2
  // core (Sapphire Rapids class), where they were measured, kc 256 (a 32 KiB
  // B micro-panel beside an 8 KiB A one), mc 336 (336 KiB of A) and nc 512
  // (512 KiB of B); on 32 KiB / 1 MiB (Cascade Lake class) kc 168, mc 256
  // and nc 384: the 32 KiB panel would fill L1d there.
  SetGemmBlocks(HostCacheSizes(), &table);
  table.gemm = x86::Avx512Gemm8x32;
  table.panel_dot = x86::Avx512PanelDot;
  table.winograd_input = x86::Avx512WinogradInput;
  table.winograd_output = x86::Avx512WinogradOutput;
  table.winograd_filter = x86::Avx512WinogradFilter;
  table.gemm_partial = x86::Avx512GemmPartial8x32;
  table.conv_rows = x86::Avx512ConvRows8x32;
  table.fma_peak = x86::Avx512FmaPeak;
  table.mac_lanes = features.avx512_half_rate ? 16 : 32;
  table.depthwise3x3_s1 = x86::Avx512Depthwise3x3S1;
  table.depthwise3x3_s2 = x86::Avx512Depthwise3x3S2;
  table.channel_block = 16;
  table.blocked_conv_blocks = 3;
  table.blocked_window_conv_blocks = 4;
  table.blocked_conv = x86::Avx512BlockedConv;
  table.blocked_pack = x86::Avx512BlockedPack;
  table.channel_pack = x86::Avx512ChannelPack;
  table.channel_unpack = x86::Avx512ChannelUnpack;
  table.blocked_window = x86::Avx512BlockedWindow;
  table.blocked_winograd_input = x86::Avx512BlockedWinogradInput;
  table.blocked_winograd_output = x86::Avx512BlockedWinogradOutput;
  table.requantize_row = x86::Avx512RequantizeRow;
  table.quantize_uint8 = x86::Avx512QuantizeUint8;
  table.eltwise_uint8_table = x86::Avx512EltwiseUint8Table;
  // vpmaddwd on zmm is AVX-512 BW, which `features.avx512` does not include.
  if (__builtin_cpu_supports("avx512bw")) {
    table.depthwise3x3_uint8_s1 = x86::Avx512DepthwiseUint8S1;
    table.depthwise3x3_uint8_s2 = x86::Avx512DepthwiseUint8S2;
    table.depthwise3x3_uint8_requant_s1 = x86::Avx512DepthwiseUint8RequantS1;
    table.depthwise3x3_uint8_requant_s2 = x86::Avx512DepthwiseUint8RequantS2;
    if (__builtin_cpu_supports("avx512vbmi")) {
      table.max_pool_uint8_row = x86::Avx512MaxPoolUint8Row;
    }
  }
  // The VNNI kernels narrow and clamp with AVX-512 BW byte and word ops.
  if (features.avx512_vnni && __builtin_cpu_supports("avx512bw")) {
    table.quantized_gemm = x86::VnniQuantizedGemm;
    table.quantized_gemm_requant = x86::VnniQuantizedGemmRequant;
    table.quantized_gemv = x86::VnniQuantizedGemv;
    table.quantized_conv_taps = x86::VnniQuantizedConvTaps;
    table.quantized_quad_pack = x86::Avx512QuantizedQuadPack;
    table.quantized_format = kQuantQuadsUint8;
    table.depthwise3x3_uint8_block = x86::VnniDepthwiseUint8Block;
    if (__builtin_cpu_supports("avx512vbmi")) {
      table.depthwise3x3_uint8_planar = x86::VbmiDepthwiseUint8Planar;
    }
  }
  return table;
}
#elif defined(__aarch64__) || defined(__ARM_NEON)
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
#endif

}  // namespace

const KernelTable* KernelTableFor(KernelIsa isa) {
  static const CpuFeatures features = DetectCpuFeatures();
  if (isa == KernelIsa::kReference || !SupportsKernelIsa(features, isa)) return nullptr;
#if defined(__x86_64__)
  static const KernelTable avx2 = MakeAvx2Table();
  static const KernelTable avx512 = MakeAvx512Table(features);
  if (isa == KernelIsa::kAvx2Fma) return &avx2;
  if (isa == KernelIsa::kAvx512) return &avx512;
#elif defined(__aarch64__) || defined(__ARM_NEON)
  static const KernelTable neon = MakeNeonTable(features);
  if (isa == KernelIsa::kNeon) return &neon;
#endif
  return nullptr;
}

const KernelTable* Fp16KernelTableFor(KernelIsa isa) {
#if defined(__aarch64__)
  static const CpuFeatures features = DetectCpuFeatures();
  if (isa != KernelIsa::kNeon || !features.neon_fp16) return nullptr;
  static const KernelTable fp16 = [] {
    KernelTable table = *KernelTableFor(KernelIsa::kNeon);
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
  return nullptr;
#endif
}

const KernelTable* ActiveKernelTable() { return KernelTableFor(ActiveKernelIsa()); }

int BlockedLayoutBlock(const KernelTable* table) {
  if (table == nullptr || table->channel_block <= 0) return 0;
  // An fp16 engine keeps its runs in half precision instead (float blocks
  // would leave its half kernels).
  if (table->fp16_gemm != nullptr) return 0;
  switch (CurrentCpuTunables().blocked_layout) {
    case BlockedLayoutMode::kOn:
      return table->channel_block;
    case BlockedLayoutMode::kOff:
      return 0;
    case BlockedLayoutMode::kAuto:
      break;
  }
  return table->blocked_layout_pays ? table->channel_block : 0;
}

}  // namespace ops
}  // namespace mace
