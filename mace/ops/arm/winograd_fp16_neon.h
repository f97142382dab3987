// The Winograd output transform on half-precision products (ARMv8.2 FP16
// arithmetic), arm64 only: built with -march=armv8.2-a+fp16 in the fp16
// kernel library and reached only through the fp16 kernel table
// (KernelTable::fp16_winograd_output) after the HWCAP check.
#ifndef MACE_OPS_ARM_WINOGRAD_FP16_NEON_H_
#define MACE_OPS_ARM_WINOGRAD_FP16_NEON_H_

#include <cstdint>

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {
namespace arm {

// KernelTable::winograd_input writing half precision: V = B^T d B of the
// float input, computed in half precision eight tiles at a time, to the
// half B panels at `out` (run.out is not read; its strides count halves).
void Fp16WinogradInput(const WinogradInputRun& run, uint16_t* out);

// KernelTable::winograd_output with M in half precision: position (r, c)
// of lane l is the half m[(r * alpha + c) * run.in_pitch + l] (run.in is
// not read). The transform runs in half precision, eight tiles at a time
// (it reads whole vectors of 8 lanes); the bias is added in half
// precision, a ReLU is applied in half precision and other activations in
// single precision after the conversion, and the output plane is float.
void Fp16WinogradOutput(const WinogradOutputRun& run, const uint16_t* m);

// Fp16WinogradInput on half tensors: the alpha input rows are `rows` (half
// values, null for rows in the padding; run.rows is not read).
void Fp16WinogradHalfInput(const WinogradInputRun& run, const uint16_t* const* rows,
                           uint16_t* out);

// Fp16WinogradOutput writing the output plane as halves to `plane` (out_w
// halves per row; run.plane is not read). Activations other than a ReLU
// run in single precision and are rounded to half.
void Fp16WinogradHalfOutput(const WinogradOutputRun& run, const uint16_t* m, uint16_t* plane);

// The same from M of floats at run.in (sums of several GEMM blocks), each
// rounded to half as it is loaded.
void Fp16WinogradHalfOutputFromFloats(const WinogradOutputRun& run, uint16_t* plane);

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARM_WINOGRAD_FP16_NEON_H_
