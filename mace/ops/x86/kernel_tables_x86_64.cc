// The x86-64 port's kernel tables: AVX2 + FMA, and AVX-512 on top of it.
// Built with baseline x86-64 flags (the tables are filled before any
// AVX kernel runs); cpu/kernel_table.cc asks for them only after the
// CPU feature check.
#include "mace/ops/cpu/kernel_tables.h"

#include "mace/ops/cpu/cache_blocks.h"
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace {

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
  if (features.avx512_bw) {
    table.depthwise3x3_uint8_s1 = x86::Avx512DepthwiseUint8S1;
    table.depthwise3x3_uint8_s2 = x86::Avx512DepthwiseUint8S2;
    table.depthwise3x3_uint8_requant_s1 = x86::Avx512DepthwiseUint8RequantS1;
    table.depthwise3x3_uint8_requant_s2 = x86::Avx512DepthwiseUint8RequantS2;
    if (features.avx512_vbmi) {
      table.max_pool_uint8_row = x86::Avx512MaxPoolUint8Row;
    }
  }
  // The VNNI kernels narrow and clamp with AVX-512 BW byte and word ops.
  if (features.avx512_vnni && features.avx512_bw) {
    table.quantized_gemm = x86::VnniQuantizedGemm;
    table.quantized_gemm_requant = x86::VnniQuantizedGemmRequant;
    table.quantized_gemv = x86::VnniQuantizedGemv;
    table.quantized_conv_taps = x86::VnniQuantizedConvTaps;
    table.quantized_quad_pack = x86::Avx512QuantizedQuadPack;
    table.quantized_format = kQuantQuadsUint8;
    table.depthwise3x3_uint8_block = x86::VnniDepthwiseUint8Block;
    if (features.avx512_vbmi) {
      // Byte permutes where the others widen, shift and unpack.
      table.quantized_quad_pack = x86::VbmiQuantizedQuadPack;
      table.depthwise3x3_uint8_block = x86::VbmiDepthwiseUint8Block;
      table.depthwise3x3_uint8_planar = x86::VbmiDepthwiseUint8Planar;
    }
  }
  return table;
}

}  // namespace

const KernelTable* PortKernelTable(KernelIsa isa, const CpuFeatures& features) {
  static const KernelTable avx2 = MakeAvx2Table();
  static const KernelTable avx512 = MakeAvx512Table(features);
  if (isa == KernelIsa::kAvx2Fma) return &avx2;
  if (isa == KernelIsa::kAvx512) return &avx512;
  return nullptr;
}

const KernelTable* PortFp16KernelTable(KernelIsa /*isa*/, const CpuFeatures& /*features*/) {
  return nullptr;
}

}  // namespace ops
}  // namespace mace
