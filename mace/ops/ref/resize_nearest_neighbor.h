// Reference ResizeNearestNeighbor over NCHW planes: each output pixel copies
// the input pixel its rounded source coordinate lands on.
#ifndef MACE_OPS_REF_RESIZE_NEAREST_NEIGHBOR_H_
#define MACE_OPS_REF_RESIZE_NEAREST_NEIGHBOR_H_

#include <cstdint>

#include "mace/ops/common/resize_geometry.h"

namespace mace {
namespace ops {
namespace ref {

// How a source coordinate becomes an index (ONNX nearest_mode names).
// The round modes differ only on exact halves.
enum class NearestMode { ROUND_PREFER_FLOOR, ROUND_PREFER_CEIL, FLOOR, CEIL };

struct ResizeNearestNeighborParams {
  int64_t batch = 0, channels = 0;
  int64_t in_h = 0, in_w = 0;
  int64_t out_h = 0, out_w = 0;
  CoordinateMode mode = CoordinateMode::ASYMMETRIC;
  NearestMode nearest_mode = NearestMode::ROUND_PREFER_FLOOR;
  // ResizeGeometry scales: the given scale, or 0 for exactly out / in.
  double scale_h = 0.0, scale_w = 0.0;
};

// The input index output index `x` copies from; always in [0, in_len).
int64_t NearestSourceIndex(CoordinateMode mode, NearestMode nearest_mode, int64_t x, int64_t in_len,
                           int64_t out_len, double scale);

// input [batch, channels, in_h, in_w], output [batch, channels, out_h, out_w].
void ResizeNearestNeighbor(const ResizeNearestNeighborParams& params, const float* input,
                           float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_RESIZE_NEAREST_NEIGHBOR_H_
