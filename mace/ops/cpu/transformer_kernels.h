// The transformer element-wise kernels: a small kernel family of its own
// (apart from the big KernelTable), a struct of function pointers filled
// once per instruction set from one list, MACE_TRANSFORMER_KERNELS. The list
// drives the struct's fields, each variant's filling (TkFill in
// transformer_kernels.inc), the test comparing every variant with the
// double-precision reference and the benchmarks.
//
// Every variant is the same portable body (transformer_kernels.inc, GCC
// generic vectors) built once per instruction set: the portable one
// (cpu/transformer_kernels.cc, four lanes: SSE2 on x86-64, NEON on arm64,
// scalar VFP code on armv7), AVX2 + FMA and AVX-512
// (x86/transformer_avx2.cc, x86/transformer_avx512.cc) and NEON with the
// ARM builds' vector flags (arm/transformer_neon.cc).
#ifndef MACE_OPS_CPU_TRANSFORMER_KERNELS_H_
#define MACE_OPS_CPU_TRANSFORMER_KERNELS_H_

#include <cstdint>
#include <vector>

#include "mace/runtimes/cpu/cpu_features.h"

namespace mace {
namespace ops {

// `count` adjacent floats mapped one by one; output may be input.
typedef void (*FloatMapKernel)(const float* input, int64_t count, float* output);

// Softmax (or with use_log log-softmax) of `rows` slices of `size` adjacent
// floats; output may be input.
typedef void (*SoftmaxRowsKernel)(const float* input, int64_t rows, int64_t size, bool use_log,
                                  float* output);

// The maximum of each of `rows` rows of `size` floats, rows `stride` apart.
typedef void (*RowMaxKernel)(const float* input, int64_t rows, int64_t size, int64_t stride,
                             float* max);

// output[r][k] = e^(input[r][k] - shift[r]) and sums[r] = the row's sum of
// them, for `rows` rows of `size` floats (input rows `stride` apart, output
// rows `output_stride` apart).
typedef void (*ExpShiftedKernel)(const float* input, int64_t rows, int64_t size, int64_t stride,
                                 const float* shift, float* output, int64_t output_stride,
                                 float* sums);

// Attention's scores held transposed (cpu/attention_cpu.cc): `keys` rows
// of `width` adjacent floats, one column per query. In place, row k becomes
// fill where keep is given and keep[k] is 0, else s * scale + add[k] (add
// may be null: nothing added); max[i] = the largest value of column i,
// NaNs skipped, -inf when none is above -inf.
typedef void (*ColumnsScaleMaxKernel)(float* scores, int64_t keys, int64_t width, float scale,
                                      const float* add, const uint8_t* keep, float fill,
                                      float* max);

// The same layout: in place, s[k][i] = e^(s[k][i] - shift[i]), and sums[i]
// = the sum of column i's exponentials.
typedef void (*ColumnsExpKernel)(float* scores, int64_t keys, int64_t width, const float* shift,
                                 float* sums);

// LayerNorm of `rows` adjacent rows of `size` floats (ref::LayerNorm);
// scale, bias, mean and inv_std_dev may be null.
typedef void (*LayerNormRowsKernel)(const float* input, int64_t rows, int64_t size,
                                    const float* scale, const float* bias, float epsilon,
                                    float* output, float* mean, float* inv_std_dev);

// Fake quantization (QuantizeLinear with `dequantize`, ref/qdq_linear.h)
// of `count` adjacent floats with one scale: x / scale clamped to [low,
// high], NaN to 0, rounded to an integer (ties to even) and times the
// scale. low and high are the integer type's bounds minus the zero point,
// integers of magnitude below 2^22; output may be input.
typedef void (*FakeQuantizeKernel)(const float* input, int64_t count, float scale, float low,
                                   float high, float* output);

// Dynamic quantization of an input row (ref/dynamic_quantized_fully_connected.h):
// the row's range, min(0, min x) and max(0, max x), and whether it holds
// no NaN and no infinity (the return value); and the row's uint8 values
// clamp(round_half_even(x * factor) + zero, 0, 255) for a finite row,
// with factor = 1 / scale and an integer zero in [0, 255].
typedef bool (*RowRangeKernel)(const float* input, int64_t count, float* low, float* high);
typedef void (*QuantizeRowKernel)(const float* input, int64_t count, float factor, float zero,
                                  uint8_t* output);

// The family, listed once: X(field, Name, Type). The body defines TkName,
// the test compares it with RefName (in double):
//   erf        erf(x), within 1e-6 of std::erf
//   gelu       0.5 x (1 + erf(x / sqrt 2)), the exact GELU
//   gelu_tanh  0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
//   sigmoid    1 / (1 + e^-x), within 1e-6 + 5e-8 |x| of the reference
//              relatively (the exponential's error grows with |x| where
//              armv7's vector flag reassociates its reduction), and FLT_MIN
//              absolutely, where e^x underflows
//   tanh       tanh(x), within 2e-6 relatively (and FLT_MIN absolutely,
//              for a build that flushes denormals)
//   softmax    Softmax over the last axis, each value within 1e-6 of the
//              reference relatively, log-softmax within 1e-6 of the larger
//              of 1 and its magnitude
//   row_max    the maximum of each row, NaNs skipped: exact
//   exp_shifted  e^(x - shift) within 2e-7 + 2e-7 |x - shift| of the
//              reference relatively, the row sums within 1e-6 (Attention's
//              softmax, normalized after its second product)
//   fake_quantize  bit for bit the reference (QuantizeLinear, then
//              DequantizeLinear)
//   row_range, quantize_row  bit for bit ref::RangeDynamic and the
//              quantization of ref::QuantizeRowDynamic
//   layer_norm LayerNorm over the last axis, each output within 1e-5 of the
//              larger of 1 and the reference's magnitude, mean and inverse
//              standard deviation within 1e-6 relatively
// A NaN gives NaN (in softmax, its whole slice); GELU of -inf gives -0 (its
// limit).
#define MACE_TRANSFORMER_KERNELS(X)                            \
  X(erf, Erf, FloatMapKernel)                                  \
  X(gelu, Gelu, FloatMapKernel)                                \
  X(gelu_tanh, GeluTanh, FloatMapKernel)                       \
  X(sigmoid, Sigmoid, FloatMapKernel)                          \
  X(tanh, Tanh, FloatMapKernel)                                \
  X(softmax, Softmax, SoftmaxRowsKernel)                       \
  X(row_max, RowMax, RowMaxKernel)                             \
  X(exp_shifted, ExpShifted, ExpShiftedKernel)                 \
  X(columns_scale_max, ColumnsScaleMax, ColumnsScaleMaxKernel) \
  X(columns_exp, ColumnsExp, ColumnsExpKernel)                 \
  X(fake_quantize, FakeQuantize, FakeQuantizeKernel)           \
  X(row_range, RowRange, RowRangeKernel)                       \
  X(quantize_row, QuantizeRow, QuantizeRowKernel)              \
  X(layer_norm, LayerNorm, LayerNormRowsKernel)

struct TransformerKernels {
  const char* name = "";
  int lanes = 0;  // floats per vector
#define MACE_TRANSFORMER_KERNEL_FIELD(field, Name, Type) Type field = nullptr;
  MACE_TRANSFORMER_KERNELS(MACE_TRANSFORMER_KERNEL_FIELD)
#undef MACE_TRANSFORMER_KERNEL_FIELD
};

// The portable variant, which every build has.
const TransformerKernels* PortableTransformerKernels();

// The variant of `isa`, or null for kReference and for families this build
// or CPU lacks.
const TransformerKernels* TransformerKernelsFor(KernelIsa isa);

// The variant an engine whose kernel family is `isa` uses (the op's
// CpuRuntime::kernel_isa, or ActiveKernelIsa without one): that of `isa`,
// the portable one on a CPU without a kernel family, and null (the
// reference kernels) for kReference on a CPU with one (MACE_CPU_KERNELS=ref
// or the engine's choice).
const TransformerKernels* EngineTransformerKernels(KernelIsa isa);

// Every variant this build and CPU run, the portable one first (for tests
// and benchmarks).
std::vector<const TransformerKernels*> AvailableTransformerKernels();

// The port's variant for `isa` (built on its first call, which comes after
// the feature check), or null: defined by the port's file
// (x86/transformer_kernels_x86_64.cc, arm/transformer_neon.cc,
// cpu/transformer_kernels_none.cc). An entry the port's build cannot run
// within its bounds takes the portable variant's.
const TransformerKernels* PortTransformerKernels(KernelIsa isa, const TransformerKernels& portable);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_TRANSFORMER_KERNELS_H_
