// The x86-64 port's uint8 kernels. AVX2: 16-bit pair GEMM words. AVX-512
// adds its output step, Quantize and Eltwise lookups; with AVX-512 BW
// (vpmaddwd on zmm, which `features.avx512` does not include) the depthwise
// rows, with VBMI the max pooling rows; with VNNI (whose kernels narrow and
// clamp with BW byte and word ops) the quad GEMM, GEMV, implicit
// convolution and blocked depthwise, and with VBMI byte permutes where the
// others widen, shift and unpack.
#include "mace/ops/cpu/kernel_tables.h"
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {

bool PortFillUint8Kernels(KernelIsa isa, const CpuFeatures& features, Uint8Kernels* k) {
  if (isa != KernelIsa::kAvx2Fma && isa != KernelIsa::kAvx512) return false;
  k->quantized_gemm = x86::Avx2QuantizedGemm;
  k->quantized_format = kQuantPairsInt16;
  k->requantize_row = x86::Avx2RequantizeRow;
  k->quantized_gemm_requant = x86::Avx2QuantizedGemmRequant;
  k->quantize_uint8 = x86::Avx2QuantizeUint8;
  k->depthwise3x3_uint8_s1 = x86::Avx2DepthwiseUint8S1;
  k->depthwise3x3_uint8_s2 = x86::Avx2DepthwiseUint8S2;
  k->max_pool_uint8_row = x86::Avx2MaxPoolUint8Row;
  k->depthwise3x3_uint8_requant_s1 = x86::Avx2DepthwiseUint8RequantS1;
  k->depthwise3x3_uint8_requant_s2 = x86::Avx2DepthwiseUint8RequantS2;
  if (isa == KernelIsa::kAvx2Fma) return true;
  k->requantize_row = x86::Avx512RequantizeRow;
  k->quantize_uint8 = x86::Avx512QuantizeUint8;
  k->eltwise_uint8_table = x86::Avx512EltwiseUint8Table;
  if (features.avx512_bw) {
    k->depthwise3x3_uint8_s1 = x86::Avx512DepthwiseUint8S1;
    k->depthwise3x3_uint8_s2 = x86::Avx512DepthwiseUint8S2;
    k->depthwise3x3_uint8_requant_s1 = x86::Avx512DepthwiseUint8RequantS1;
    k->depthwise3x3_uint8_requant_s2 = x86::Avx512DepthwiseUint8RequantS2;
    if (features.avx512_vbmi) k->max_pool_uint8_row = x86::Avx512MaxPoolUint8Row;
  }
  if (features.avx512_vnni && features.avx512_bw) {
    k->quantized_gemm = x86::VnniQuantizedGemm;
    k->quantized_gemm_requant = x86::VnniQuantizedGemmRequant;
    k->quantized_gemv = x86::VnniQuantizedGemv;
    k->quantized_conv_taps = x86::VnniQuantizedConvTaps;
    k->quantized_quad_pack = x86::Avx512QuantizedQuadPack;
    k->quantized_format = kQuantQuadsUint8;
    k->depthwise3x3_uint8_block = x86::VnniDepthwiseUint8Block;
    if (features.avx512_vbmi) {
      k->quantized_quad_pack = x86::VbmiQuantizedQuadPack;
      k->depthwise3x3_uint8_block = x86::VbmiDepthwiseUint8Block;
      k->depthwise3x3_uint8_planar = x86::VbmiDepthwiseUint8Planar;
    }
  }
  return true;
}

}  // namespace ops
}  // namespace mace
