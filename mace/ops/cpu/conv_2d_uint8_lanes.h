// The vector parts of the uint8 GEMM convolution's input packing
// (conv_2d_uint8_gemm.cc): each function does a leading part of its range
// and returns where it stopped; the driver does the rest one by one. The
// portable versions (conv_2d_uint8_lanes.cc) do none; x86-64 has SSE2 ones
// (x86/conv_2d_uint8_lanes_x86_64.cc), the ARM builds NEON ones for the
// pairs (arm/conv_2d_uint8_lanes_aarch64.cc, arm/conv_2d_uint8_lanes_armv7.cc
// over arm/conv_2d_uint8_lanes_neon.inc).
#ifndef MACE_OPS_CPU_CONV_2D_UINT8_LANES_H_
#define MACE_OPS_CPU_CONV_2D_UINT8_LANES_H_

#include <cstdint>

namespace mace {
namespace ops {

// Word i of `out` takes two int16: r0[i] - subtract, r1[i] - subtract.
int64_t InterleavePairVectors(const uint8_t* r0, const uint8_t* r1, int64_t count,
                              uint8_t subtract, int32_t* out);

// Word i of `out` takes the four bytes rows[0..3][i].
int64_t InterleaveQuadVectors(const uint8_t* const* rows, int64_t count, int32_t* out);

// sums[pos] += the four bytes of word pos.
int64_t AddQuadSumVectors(const uint8_t* words, int64_t count, int32_t* sums);

// dst[i] = src[2 * i] from i = first on, where src[2 * (last - 1)] is the
// last byte that may be read.
int64_t CopyEvenBytesVectors(const uint8_t* src, int64_t first, int64_t last, uint8_t* dst);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_UINT8_LANES_H_
