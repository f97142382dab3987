// The ARM port's half-precision family: arm64 with ARMv8.2 FP16 arithmetic
// (AT_HWCAP's FPHP and ASIMDHP), in the tables Fp16KernelTableFor returns.
#include "mace/ops/arm/fp16_neon_kernels.h"
#include "mace/ops/arm/winograd_fp16_neon.h"
#include "mace/ops/cpu/kernel_tables.h"

namespace mace {
namespace ops {

bool PortFillFp16Kernels(KernelIsa isa, const CpuFeatures& features, Fp16Kernels* k) {
#if defined(__aarch64__)
  if (isa != KernelIsa::kNeon || !features.neon_fp16) return false;
  k->fp16_table_name = "neon_fp16";
  k->fp16_mr = arm::kFp16GemmMr;
  k->fp16_nr = arm::kFp16GemmNr;
  k->fp16_kc = 256;
  k->fp16_gemm = arm::Fp16GemmTile;
  k->fp16_panel_dot = arm::Fp16PanelDot;
  k->fp16_from_float = arm::Fp16FromFloat;
  k->fp16_pack_columns = arm::Fp16PackColumns;
  k->fp16_depthwise3x3_s1 = arm::Fp16Depthwise3x3S1;
  k->fp16_depthwise3x3_s2 = arm::Fp16Depthwise3x3S2;
  k->fp16_depthwise3x3_packed = arm::Fp16Depthwise3x3Packed;
  k->fp16_gemm_half = arm::Fp16GemmTileHalf;
  k->fp16_gemm_half_rows = arm::Fp16GemmTileHalfRows;
  k->fp16_gemm_half_positions = arm::Fp16GemmHalfPositions;
  k->fp16_pack_half_columns = arm::Fp16PackHalfColumns;
  k->fp16_to_float = arm::Fp16ToFloat;
  k->fp16_add = arm::Fp16Add;
  k->fp16_winograd_input = arm::Fp16WinogradInput;
  k->fp16_winograd_output = arm::Fp16WinogradOutput;
  k->fp16_winograd_half_input = arm::Fp16WinogradHalfInput;
  k->fp16_winograd_half_output = arm::Fp16WinogradHalfOutput;
  k->fp16_winograd_half_output_from_floats = arm::Fp16WinogradHalfOutputFromFloats;
  return true;
#else
  (void)isa;
  (void)features;
  (void)k;
  return false;
#endif
}

}  // namespace ops
}  // namespace mace
