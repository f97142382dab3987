// The interface of the uint8 GEMM micro-kernels (mace/ops/x86), as plain
// types only, like micro_kernels.h.
//
// The kernels multiply packed int32 words: each word holds a group of
// consecutive reduction (k) values, in one of two formats:
//   kQuantPairsInt16  two int16 values, already minus their zero points
//                     (exact products of up to 255 x 255, summed by pairs);
//   kQuantQuadsUint8  four bytes: uint8 on the input side, int8 on the
//                     weight side (the driver corrects for the offsets);
//   kQuantQuadsUint8Unsigned  four bytes, uint8 on both sides (int8 weights
//                     shifted up by 128; the driver corrects again).
// C[row][col] = sum over groups g of dot(A[row][g], B[g][col]), in int32.
// rows is a multiple of kQuantGemmRows and cols of kQuantGemmCols (the driver
// pads with zero words); A is [rows][groups], B is [groups][cols], C is
// [rows][cols].
#ifndef MACE_OPS_CPU_QUANTIZED_MICRO_KERNELS_H_
#define MACE_OPS_CPU_QUANTIZED_MICRO_KERNELS_H_

#include <cstdint>

namespace mace {
namespace ops {

enum QuantGemmFormat : int32_t {
  kQuantPairsInt16 = 0,
  kQuantQuadsUint8 = 1,
  kQuantQuadsUint8Unsigned = 2,
};

constexpr int kQuantGemmRows = 4;
constexpr int kQuantGemmCols = 32;

using QuantizedGemmKernel = void (*)(const int32_t* a, const int32_t* b, int64_t rows,
                                     int64_t groups, int64_t cols, int32_t* c);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_QUANTIZED_MICRO_KERNELS_H_
