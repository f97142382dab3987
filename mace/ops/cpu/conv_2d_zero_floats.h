// Zeroing of short float ranges for the padded image
// (conv_2d_padded_image.cc): std::fill in conv_2d_zero_floats.cc, a vector
// store loop on arm64 (arm/conv_2d_zero_floats_aarch64.cc).
#ifndef MACE_OPS_CPU_CONV_2D_ZERO_FLOATS_H_
#define MACE_OPS_CPU_CONV_2D_ZERO_FLOATS_H_

#include <cstdint>

namespace mace {
namespace ops {

// values[0, count) = 0.
void ZeroFloatRun(float* values, int64_t count);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_ZERO_FLOATS_H_
