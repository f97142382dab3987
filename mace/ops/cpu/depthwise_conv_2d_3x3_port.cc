// DepthwiseConv3x3's port for builds without one of their own (x86-64 and
// others): bands copied row by row, no planes read in place.
#include <cstring>

#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3_planes.h"

namespace mace {
namespace ops {

bool DepthwiseConv3x3::TakesPlanesInPlace() const { return false; }

int64_t DepthwiseConv3x3::PortBandRows(int64_t rows) const { return rows; }

void DepthwiseConv3x3::CopyBandRows(const float* src, float* dst, int64_t rows) const {
  // Locals: memcpy may alias the members as far as the compiler knows, and
  // rows are short enough for reloads to show.
  const int64_t bytes = copy_columns_ * static_cast<int64_t>(sizeof(float));
  const int64_t in_w = params_.in_w, pitch = pitch_;
  for (int64_t i = 0; i < rows; ++i, src += in_w, dst += pitch) std::memcpy(dst, src, bytes);
}

void DepthwiseConv3x3::CopyHalfBandRows(const uint16_t* src, uint16_t* dst, int64_t rows) const {
  // Locals: the stores may alias the members as far as the compiler knows.
  const int64_t columns = copy_columns_, in_w = params_.in_w, pitch = pitch_;
  for (int64_t i = 0; i < rows; ++i, src += in_w, dst += pitch) {
    depthwise_3x3::CopyHalfRow(src, columns, dst);
  }
}

void DepthwiseConv3x3::RunWholePlanes(const float* input, const float* filter, const float* bias,
                                      float* output, ThreadPool* pool, float* scratch) const {
  RunPlanes(input, filter, bias, output, false, pool, scratch);
}

void DepthwiseConv3x3::RunInPlace(const float*, const float*, const float*, float*,
                                  ThreadPool*) const {}

}  // namespace ops
}  // namespace mace
